import type { Doc } from '../bson/bson-types';
import { CommandError, notImplemented } from '../errors/command-error';
import { aggregate } from './aggregate-command';
import type { CommandContext, CommandHandler } from './command-context';
import { count, distinct } from './count-distinct-commands';
import { getMore, killCursors } from './cursor-commands';
import { deleteCommand } from './delete-command';
import { find } from './find-command';
import { findAndModify } from './find-and-modify-command';
import { buildInfo, endSessions, getParameter, hello, ping } from './handshake-commands';
import { createIndexes, dropIndexes, listIndexes } from './index-commands';
import { insert } from './insert-command';
import { replSetStepDown } from './replication-commands';
import { create, drop, dropDatabase, listCollections } from './namespace-commands';
import { update } from './update-command';
import { CommandCounters } from './command-counters';

const HANDLERS: ReadonlyMap<string, CommandHandler> = new Map<string, CommandHandler>([
  ['hello', hello],
  ['isMaster', hello],
  ['ismaster', hello],
  ['ping', ping],
  ['buildInfo', buildInfo],
  ['buildinfo', buildInfo],
  ['getParameter', getParameter],
  ['endSessions', endSessions],
  ['getMore', getMore],
  ['killCursors', killCursors],
  ['insert', insert],
  ['update', update],
  ['delete', deleteCommand],
  ['find', find],
  ['findAndModify', findAndModify],
  ['findandmodify', findAndModify],
  ['count', count],
  ['distinct', distinct],
  ['aggregate', aggregate],
  ['createIndexes', createIndexes],
  ['listIndexes', listIndexes],
  ['dropIndexes', dropIndexes],
  ['deleteIndexes', dropIndexes],
  ['create', create],
  ['drop', drop],
  ['dropDatabase', dropDatabase],
  ['listCollections', listCollections],
  ['replSetStepDown', replSetStepDown],
]);

/** Commands that write: refused while stepped down, and replayed rather than re-run when the driver retries them. */
const WRITE_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'createIndexes',
  'dropIndexes',
  'deleteIndexes',
  'create',
  'drop',
  'dropDatabase',
]);

/**
 * What a stepped-down primary answers a write: NotWritablePrimary, labelled RetryableWriteError
 * when the write was a retryable one (it has a transaction number), as MongoDB 4.4+ labels it.
 */
function notWritablePrimary(cmd: Doc): CommandError {
  return new CommandError('NotWritablePrimary', 'not primary', cmd['txnNumber'] !== undefined ? { errorLabels: ['RetryableWriteError'] } : {});
}

/** Real MongoDB commands a caller might reasonably send; refused by name rather than as "no such command". */
const KNOWN_NOT_IMPLEMENTED = new Set([
  'explain',
  'collMod',
  'renameCollection',
  'listDatabases',
  'bulkWrite',
  'mapReduce',
  'validate',
  'saslStart',
  'saslContinue',
  'authenticate',
  'startSession',
  'commitTransaction',
  'abortTransaction',
  'collStats',
  'dbStats',
  'currentOp',
  'killOp',
  'replSetGetStatus',
  'replSetFreeze',
  'shutdown',
  'compact',
  'reIndex',
]);

/** The handler-facing failure for anything that is not a CommandError: a bug in this server. */
export type InternalErrorSink = (error: unknown, command: string) => void;

/**
 * Routes a command document to its handler and turns every outcome into a reply body. The
 * command name is the first key and the database is `$db`, as in OP_MSG. Transactions are
 * refused as a standalone MongoDB refuses them; unknown commands get code 59 CommandNotFound.
 * Writes are refused while the server is stepped down, and a retried retryable write gets the
 * reply of its first run instead of running again.
 * Handlers run synchronously, one at a time, so each command applies atomically.
 *
 * After every command, whatever its outcome (an unordered insert may fail after writing some
 * documents), `commit` makes its changes durable before the reply is returned: the connection
 * writes the reply only after `dispatch` returns, and nothing else runs in between, since no
 * command awaits. So an acknowledged write is always committed, and a command's changes
 * (with its retryable-write reply) are committed together.
 */
export class CommandDispatcher {
  private readonly counters = new CommandCounters();

  /**
   * @param commit makes the last command's changes durable (the persisted mode); throws when it
   *   cannot, and the command is then answered with an InternalError instead of its reply
   */
  constructor(
    private readonly onInternalError: InternalErrorSink,
    private readonly commit: () => void = () => undefined,
  ) {}

  /** Runs one command, commits its changes and returns its reply (`ok: 1`, or `ok: 0` with MongoDB's code). */
  dispatch(cmd: Doc, ctx: CommandContext): Doc {
    const name = Object.keys(cmd)[0] ?? '';
    let reply = this.run(name, cmd, ctx);
    try {
      this.commit();
    } catch (error) {
      this.onInternalError(error, name);
      reply = internalError(name, error);
    }
    this.counters.count(name, reply['ok'] !== 1);
    return reply;
  }

  private run(name: string, cmd: Doc, ctx: CommandContext): Doc {
    try {
      const db = cmd['$db'];
      if (typeof db !== 'string')
        throw new CommandError('Location40571', 'OP_MSG requests require a $db argument');
      if (cmd['startTransaction'] === true || cmd['autocommit'] === false) {
        if (ctx.replication.setName !== undefined) throw notImplemented('Multi-document transactions');
        throw new CommandError(
          'IllegalOperation',
          'Transaction numbers are only allowed on a replica set member or mongos',
        );
      }
      if (name === 'serverStatus') return this.counters.serverStatus(ctx);
      const handler = HANDLERS.get(name);
      if (handler === undefined) {
        if (KNOWN_NOT_IMPLEMENTED.has(name)) throw notImplemented(`The command '${name}'`);
        throw new CommandError('CommandNotFound', `no such command: '${name}'`);
      }
      if (!WRITE_COMMANDS.has(name)) return handler(cmd, db, ctx);
      if (!ctx.replication.isWritablePrimary()) throw notWritablePrimary(cmd);
      const replayed = ctx.retryableWrites.replay(cmd);
      if (replayed !== undefined) return replayed;
      const reply = handler(cmd, db, ctx);
      ctx.retryableWrites.record(cmd, reply);
      return reply;
    } catch (error) {
      if (error instanceof CommandError) return error.toReply();
      this.onInternalError(error, name);
      return internalError(name, error);
    }
  }
}

/** The reply for a failure that is not MongoDB's: a bug in this server, or its data file could not be written. */
function internalError(name: string, error: unknown): Doc {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: 0,
    errmsg: `internal error in the embedded MongoDB server while running '${name}': ${message}`,
    code: 1,
    codeName: 'InternalError',
  };
}
