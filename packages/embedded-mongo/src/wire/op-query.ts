import type { Doc } from '../bson/bson-types';
import { isPlainObject } from '../bson/bson-types';
import { decodeDocument, encodeDocument } from './bson-codec';
import { newRequestId, writeHeader } from './message-header';
import { HEADER_SIZE, OpCode } from './op-codes';

/** A decoded legacy OP_QUERY: the target namespace and the query (the command, for `<db>.$cmd`). */
export interface OpQueryRequest {
  readonly collection: string;
  readonly query: Doc;
}

/** Decodes an OP_QUERY, unwrapping `{ $query: ... }` as servers do. */
export function decodeOpQuery(message: Buffer): OpQueryRequest {
  const nameStart = HEADER_SIZE + 4;
  const nameEnd = message.indexOf(0, nameStart);
  if (nameEnd < 0) throw new Error('unterminated collection name in OP_QUERY');
  const collection = message.toString('utf8', nameStart, nameEnd);
  const docStart = nameEnd + 1 + 8;
  const docSize = message.readInt32LE(docStart);
  const raw = decodeDocument(message.subarray(docStart, docStart + docSize));
  const query = isPlainObject(raw['$query']) ? raw['$query'] : raw;
  return { collection, query };
}

/** Encodes an OP_REPLY carrying one document (no cursor), answering `responseTo`. */
export function encodeOpReply(responseTo: number, body: Doc): Buffer {
  const doc = encodeDocument(body);
  const message = Buffer.alloc(HEADER_SIZE + 20 + doc.length);
  writeHeader(message, newRequestId(), responseTo, OpCode.OP_REPLY);
  message.writeInt32LE(0, HEADER_SIZE); // responseFlags
  message.writeBigInt64LE(0n, HEADER_SIZE + 4); // cursorID
  message.writeInt32LE(0, HEADER_SIZE + 12); // startingFrom
  message.writeInt32LE(1, HEADER_SIZE + 16); // numberReturned
  doc.copy(message, HEADER_SIZE + 20);
  return message;
}
