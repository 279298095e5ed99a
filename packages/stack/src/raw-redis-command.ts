import { connect } from 'node:net';

/**
 * Sends one inline command to the Redis on `127.0.0.1:port` over a raw socket and resolves with
 * its whole reply (`+PONG`, `-ERR ...`, `:1`, or a bulk string's payload), or `undefined` when
 * there is no answer within `timeoutMs`. The stack checks readiness this way, without a client
 * library whose reconnect loop would hide a dead server. Arrays are not supported.
 */
export function rawRedisCommand(
  port: number,
  command: string,
  timeoutMs = 1000,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let reply = '';
    let settled = false;
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (value: string | undefined): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(timeoutMs, () => finish(undefined));
    socket.once('error', () => finish(undefined));
    socket.once('close', () => finish(undefined));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      const complete = completeReply(reply);
      if (complete !== undefined) finish(complete);
    });
  });
}

/** The reply once all of it has arrived: a bulk string's payload, else its first line. */
function completeReply(reply: string): string | undefined {
  const end = reply.indexOf('\r\n');
  if (end < 0) return undefined;
  const header = reply.slice(0, end);
  if (!header.startsWith('$')) return header;
  const length = Number(header.slice(1));
  if (length < 0) return '';
  const body = reply.slice(end + 2);
  return Buffer.byteLength(body, 'latin1') >= length + 2 ? body.slice(0, length) : undefined;
}
