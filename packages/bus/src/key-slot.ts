/** Hash slots of a Redis Cluster. */
const SLOTS = 16384;

/**
 * The hash slot of a key, as Redis Cluster computes it (its specification, "Keys distribution
 * model"): CRC16 (XModem) of the key, or of its hash tag — the part between the first `{` and the
 * next `}` when that part is not empty — modulo 16384. BullMQ's keys of one queue share its hash tag.
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  const close = open < 0 ? -1 : bytes.indexOf(0x7d, open + 1);
  const hashed = close > open + 1 ? bytes.subarray(open + 1, close) : bytes;
  return crc16(hashed) % SLOTS;
}

/** CRC16-CCITT (XModem): polynomial 0x1021, initial value 0. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
