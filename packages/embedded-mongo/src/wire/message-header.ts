/** The standard header every wire message starts with. */
export interface MessageHeader {
  readonly length: number;
  readonly requestId: number;
  readonly responseTo: number;
  readonly opCode: number;
}

/** Reads the header of a complete message. */
export function readHeader(message: Buffer): MessageHeader {
  return {
    length: message.readInt32LE(0),
    requestId: message.readInt32LE(4),
    responseTo: message.readInt32LE(8),
    opCode: message.readInt32LE(12),
  };
}

/** Writes a header at the start of a message buffer of the given total length. */
export function writeHeader(target: Buffer, requestId: number, responseTo: number, opCode: number): void {
  target.writeInt32LE(target.length, 0);
  target.writeInt32LE(requestId, 4);
  target.writeInt32LE(responseTo, 8);
  target.writeInt32LE(opCode, 12);
}

let nextRequestId = 1;

/** A fresh requestID for a message this server sends. */
export function newRequestId(): number {
  nextRequestId = nextRequestId >= 0x7fffffff ? 1 : nextRequestId + 1;
  return nextRequestId;
}
