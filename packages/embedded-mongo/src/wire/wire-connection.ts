import type { Socket } from 'node:net';
import type { Doc } from '../bson/bson-types';
import type { CommandContext } from '../commands/command-context';
import type { CommandDispatcher } from '../commands/command-dispatcher';
import { helloReply, MAX_MESSAGE_SIZE_BYTES } from '../commands/handshake-commands';
import { CommandError } from '../errors/command-error';
import { ErrorCodes } from '../errors/error-codes';
import type { LogSink } from '../log-sink';
import { MessageFramer } from './message-framer';
import { readHeader } from './message-header';
import { OpCode, OpMsgFlags } from './op-codes';
import { decodeOpMsg, encodeOpMsg, readOpMsgFlags } from './op-msg';
import { decodeOpQuery, encodeOpReply } from './op-query';

const LEGACY_HELLO = new Set(['hello', 'isMaster', 'ismaster']);

/**
 * Runs `answer`, turning a CommandError thrown while decoding the message (a document nested
 * past MongoDB's limit) into the error reply MongoDB sends: it keeps the connection open for
 * such user-caused parse errors. Anything else propagates and closes the connection.
 */
function answerParseError(answer: () => Doc): Doc {
  try {
    return answer();
  } catch (error) {
    if (error instanceof CommandError) return error.toReply();
    throw error;
  }
}

/**
 * One client connection: frames the byte stream into messages, answers the legacy OP_QUERY
 * handshake with OP_REPLY, runs every OP_MSG command through the dispatcher and replies with
 * OP_MSG (nothing when the client set `moreToCome`). A message nested past MongoDB's BSON depth
 * limit is answered with MongoDB's Overflow error and the connection stays open, as in MongoDB;
 * a malformed stream or an opcode this server does not speak closes the connection, since it
 * cannot be answered meaningfully.
 */
export class WireConnection {
  private readonly framer = new MessageFramer(MAX_MESSAGE_SIZE_BYTES);

  constructor(
    private readonly socket: Socket,
    private readonly context: CommandContext,
    private readonly dispatcher: CommandDispatcher,
    private readonly log: LogSink,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) =>
      this.log('debug', 'client socket error', { connectionId: context.connectionId, error: error.message }),
    );
  }

  private onData(chunk: Buffer): void {
    try {
      for (const message of this.framer.push(chunk)) {
        if (this.socket.destroyed) return;
        this.handle(message);
      }
    } catch (error) {
      this.log('warn', 'closing connection after a malformed message', {
        connectionId: this.context.connectionId,
        error: error instanceof Error ? error.message : String(error),
      });
      this.socket.destroy();
    }
  }

  private handle(message: Buffer): void {
    const header = readHeader(message);
    switch (header.opCode) {
      case OpCode.OP_MSG: {
        const flags = readOpMsgFlags(message);
        const reply = answerParseError(() => {
          const { command } = decodeOpMsg(message);
          return this.dispatcher.dispatch(command, this.context);
        });
        if ((flags & OpMsgFlags.moreToCome) === 0) this.socket.write(encodeOpMsg(header.requestId, reply));
        return;
      }
      case OpCode.OP_QUERY: {
        const reply = answerParseError(() => {
          const { collection, query } = decodeOpQuery(message);
          return this.answerLegacy(collection, query);
        });
        this.socket.write(encodeOpReply(header.requestId, reply));
        return;
      }
      default:
        this.log('warn', 'closing connection: unsupported wire opcode', {
          connectionId: this.context.connectionId,
          opCode: header.opCode,
        });
        this.socket.destroy();
    }
  }

  /** Legacy OP_QUERY is only for the handshake, as in MongoDB 5.1+; anything else gets MongoDB's 352. */
  private answerLegacy(collection: string, query: Doc): Doc {
    const name = Object.keys(query)[0] ?? '';
    if (collection.endsWith('.$cmd') && LEGACY_HELLO.has(name))
      return helloReply(this.context, name !== 'hello');
    return {
      ok: 0,
      errmsg: `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal`,
      code: ErrorCodes.UnsupportedOpQueryCommand,
      codeName: 'UnsupportedOpQueryCommand',
    };
  }
}
