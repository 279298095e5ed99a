import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the probe server asks the service. */
export interface ProbeSources {
  /** Ready to take work (connected to Redis and MongoDB, workers running). */
  ready(): boolean;
  /** Counters and gauges, rendered in Prometheus text format. */
  metrics(): Record<string, number>;
}

/**
 * `/healthz` (process alive), `/readyz` (dependencies up) and `/metrics` over HTTP.
 * `start()` resolves with the bound port.
 */
export class ProbeServer {
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly service: string,
    private readonly sources: ProbeSources,
  ) {}

  async start(port: number, host = '0.0.0.0'): Promise<number> {
    const server = createServer((req, res) => {
      if (req.url === '/healthz') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      } else if (req.url === '/readyz') {
        const ready = this.sources.ready();
        res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ready\n' : 'not ready\n');
      } else if (req.url === '/metrics') {
        const lines = Object.entries(this.sources.metrics()).map(
          ([k, v]) => `sas_${this.service.replace(/[^a-zA-Z0-9_]/g, '_')}_${k} ${v}`,
        );
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(lines.join('\n') + '\n');
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

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}
