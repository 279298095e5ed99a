import { MessageFramer } from './message-framer';

function message(length: number, fill: number): Buffer {
  const buffer = Buffer.alloc(length, fill);
  buffer.writeInt32LE(length, 0);
  return buffer;
}

describe('MessageFramer', () => {
  it('joins a message delivered one byte at a time', () => {
    const framer = new MessageFramer(1024);
    const whole = message(40, 7);
    const out: Buffer[] = [];
    for (const byte of whole) out.push(...framer.push(Buffer.from([byte])));
    expect(out).toEqual([whole]);
  });

  it('splits several messages arriving in one chunk, keeping a trailing partial one', () => {
    const framer = new MessageFramer(1024);
    const a = message(20, 1);
    const b = message(30, 2);
    const c = message(25, 3);
    expect(framer.push(Buffer.concat([a, b, c.subarray(0, 10)]))).toEqual([a, b]);
    expect(framer.push(c.subarray(10))).toEqual([c]);
  });

  it('refuses impossible lengths', () => {
    expect(() => new MessageFramer(1024).push(message(2048, 0))).toThrow('invalid wire message length 2048');
    const tiny = Buffer.alloc(8);
    tiny.writeInt32LE(4, 0);
    expect(() => new MessageFramer(1024).push(tiny)).toThrow('invalid wire message length 4');
  });
});
