import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * The dashboard's HTTP server with the lifecycle every long-running component shares: `start()`
 * resolves with the bound port (0 picks a free one), `close()` is idempotent and keeps its promise.
 */
export class DashboardServer {
  readonly name = 'http';
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly app: Express) {}

  async start(port: number, host: string): Promise<number> {
    if (this.server) throw new Error('DashboardServer is already started; create another one to listen twice');
    const server = this.app.listen(port, host);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', (e) => reject(new Error(`Cannot listen on ${host}:${port}: ${e.message}; set PORT to a free port (0 picks one) or HOST to a local address`, { cause: e })));
    });
    return (server.address() as AddressInfo).port;
  }

  /** Stops accepting connections and closes idle keep-alive ones, so shutdown does not wait for browsers. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
    return this.closing;
  }
}
