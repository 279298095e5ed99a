import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** What the probe server asks the service. */
export interface ProbeSources {
  /** Ready to take work (connected to Redis and MongoDB, workers running). */
  ready(): boolean;
  /** The process's own metrics registry (see `createMetricsRegistry`), rendered at every scrape. */
  registry: Registry;
}

/**
 * `/healthz` (process alive), `/readyz` (dependencies up) and `/metrics` (Prometheus exposition of
 * the service's registry) over HTTP. `start()` resolves with the bound port.
 */
export class ProbeServer {
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly sources: ProbeSources) {}

  /** Listens on `port` (0 picks one) at `host`: loopback unless told (`PROBE_HOST`), as `/metrics` describes the system. */
  async start(port: number, host = '127.0.0.1'): Promise<number> {
    const server = createServer((req, res) => {
      if (req.url === '/healthz') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      } else if (req.url === '/readyz') {
        const ready = this.sources.ready();
        res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ready\n' : 'not ready\n');
      } else if (req.url === '/metrics') {
        void this.metrics(res);
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /healthz, /readyz, /metrics\n');
      }
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  /** A collector that fails (a store query on scrape) fails this scrape only, with a reason. */
  private async metrics(res: ServerResponse): Promise<void> {
    const { registry } = this.sources;
    try {
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType }).end(text);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}
