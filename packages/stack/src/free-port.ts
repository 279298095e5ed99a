import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, so each test can own its servers.
 * The OS picks it (listen on port 0) and the socket is closed before returning; another process
 * could take it in between, which is why {@link startRedis} retries on "address in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`freePort: unexpected server address ${String(address)}; expected a TCP address`));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
