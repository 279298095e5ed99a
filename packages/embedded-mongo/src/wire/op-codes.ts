/** Wire protocol opcodes this server reads or writes (MongoDB's numbers). */
export const OpCode = {
  /** Legacy reply; used only to answer the driver's first `isMaster`. */
  OP_REPLY: 1,
  /** Legacy query; drivers send only the connection handshake this way. */
  OP_QUERY: 2004,
  /** Every command after the handshake. */
  OP_MSG: 2013,
} as const;

/** Size of the standard message header: length, requestID, responseTo, opCode. */
export const HEADER_SIZE = 16;

/** OP_MSG flag bits. */
export const OpMsgFlags = {
  checksumPresent: 1 << 0,
  moreToCome: 1 << 1,
} as const;
