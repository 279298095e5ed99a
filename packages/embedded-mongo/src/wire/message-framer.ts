import { HEADER_SIZE } from './op-codes';

/**
 * Cuts a TCP byte stream into whole wire messages. TCP delivers arbitrary slices: a message may
 * arrive in several chunks and one chunk may hold several messages, so bytes are buffered until
 * the length prefix says a message is complete.
 */
export class MessageFramer {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly maxMessageBytes: number) {}

  /**
   * Adds received bytes and returns the messages they complete, in order. Throws when a length
   * prefix is impossible (below the header size or above the limit): the stream cannot be
   * resynchronised, so the caller should close the connection.
   */
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const messages: Buffer[] = [];
    while (this.buffered.length >= 4) {
      const length = this.buffered.readInt32LE(0);
      if (length < HEADER_SIZE || length > this.maxMessageBytes) {
        throw new Error(
          `invalid wire message length ${length} (must be between ${HEADER_SIZE} and ${this.maxMessageBytes} bytes)`,
        );
      }
      if (this.buffered.length < length) break;
      messages.push(this.buffered.subarray(0, length));
      this.buffered = this.buffered.subarray(length);
    }
    return messages;
  }
}
