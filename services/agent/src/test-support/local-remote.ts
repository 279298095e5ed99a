import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the local remote received. */
export interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** Answers one request. */
export type Responder = (res: ServerResponse) => void;

/** A local HTTP server answering each request with the next responder (the last one repeats). */
export async function startRemote(
  responders: Responder[],
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      received.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: raw === '' ? undefined : (JSON.parse(raw) as unknown),
      });
      const respond = responders[Math.min(received.length - 1, responders.length - 1)];
      respond?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, server };
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (res) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Never answers. */
export const hang: Responder = () => undefined;
