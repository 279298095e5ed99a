import type { IncomingMessage } from 'node:http';

/** Largest request body accepted. @default 1_048_576 (1 MiB) */
export const defaultMaxBodyBytes = 1_048_576;

/** A request body as text, or the news that it was too large to read. */
export type BodyText = { ok: true; text: string } | { ok: false; reason: 'too-large' };

/**
 * Reads a request body as UTF-8, refusing bodies over `maxBytes` so a runaway client cannot
 * exhaust the simulator's memory. Rejects when the client aborts mid-body.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyText> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        settled = true;
        resolve({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    });
    req.on('error', (err) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
  });
}
