import type { Doc } from '../bson/bson-types';
import { decodeDocument, encodeDocument } from './bson-codec';
import { newRequestId, writeHeader } from './message-header';
import { HEADER_SIZE, OpCode, OpMsgFlags } from './op-codes';

/** A decoded OP_MSG: its flag bits and the command with document sequences merged in. */
export interface OpMsgRequest {
  readonly flags: number;
  readonly command: Doc;
}

function readCString(message: Buffer, offset: number): { value: string; next: number } {
  const end = message.indexOf(0, offset);
  if (end < 0) throw new Error('unterminated cstring in OP_MSG document sequence');
  return { value: message.toString('utf8', offset, end), next: end + 1 };
}

/** The flag bits of an OP_MSG, readable even when its sections cannot be decoded. */
export function readOpMsgFlags(message: Buffer): number {
  return message.readUInt32LE(HEADER_SIZE);
}

/**
 * Decodes an OP_MSG: the kind-0 section is the command; each kind-1 section (`documents`,
 * `updates`, `deletes`) is a document sequence merged into the command as an array field. A
 * trailing CRC-32C checksum, when flagged, is skipped rather than verified (loopback only).
 */
export function decodeOpMsg(message: Buffer): OpMsgRequest {
  const flags = readOpMsgFlags(message);
  const end = message.length - (flags & OpMsgFlags.checksumPresent ? 4 : 0);
  let offset = HEADER_SIZE + 4;
  let body: Doc | undefined;
  const sequences: [string, Doc[]][] = [];
  while (offset < end) {
    const kind = message[offset];
    offset += 1;
    const size = message.readInt32LE(offset);
    if (kind === 0) {
      body = decodeDocument(message.subarray(offset, offset + size));
      offset += size;
    } else if (kind === 1) {
      const sectionEnd = offset + size;
      const id = readCString(message, offset + 4);
      const docs: Doc[] = [];
      let at = id.next;
      while (at < sectionEnd) {
        const docSize = message.readInt32LE(at);
        docs.push(decodeDocument(message.subarray(at, at + docSize)));
        at += docSize;
      }
      sequences.push([id.value, docs]);
      offset = sectionEnd;
    } else {
      throw new Error(`unknown OP_MSG section kind ${String(kind)}`);
    }
  }
  if (body === undefined) throw new Error('OP_MSG without a kind-0 body section');
  for (const [identifier, docs] of sequences) body[identifier] = docs;
  return { flags, command: body };
}

/** Encodes an OP_MSG reply (no flags, one kind-0 section) answering `responseTo`. */
export function encodeOpMsg(responseTo: number, body: Doc): Buffer {
  const doc = encodeDocument(body);
  const message = Buffer.alloc(HEADER_SIZE + 4 + 1 + doc.length);
  writeHeader(message, newRequestId(), responseTo, OpCode.OP_MSG);
  message.writeUInt32LE(0, HEADER_SIZE);
  message.writeUInt8(0, HEADER_SIZE + 4);
  doc.copy(message, HEADER_SIZE + 5);
  return message;
}
