import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureError, type Logger } from '@sas/runtime';
import { compensatesIdempotencyKeyHeader } from './compensated-key';
import { parseJsonBody } from './malformed-json';
import { defaultMaxBodyBytes, readBody } from './read-body';
import type { RemoteServiceName } from './remote-operations';
import type { RemoteSim } from './remote-sim';
import { routeRequest } from './sim-router';
import type { SimResponse } from './sim-response';

/** What {@link RemoteSimServer} serves and where it logs. */
export interface RemoteSimServerOptions {
  sim: RemoteSim;
  logger: Logger;
  /** @default 1_048_576 */
  maxBodyBytes?: number;
}

// A request whose answer is not written yet: hanging, waiting out injected latency, or waiting for
// its service's answers to be released (`release` then holds the answer and the service).
interface HeldRequest {
  res: ServerResponse;
  timer: NodeJS.Timeout | undefined;
  release?: { service: string; response: SimResponse };
}

/**
 * The simulator over real HTTP (node:http, no framework), so agents exercise their real client:
 * sockets, timeouts, aborts and `Retry-After`. It reads bodies, waits out injected latency, holds
 * hanging requests, and writes what {@link routeRequest} decides.
 *
 * @example
 * ```ts
 * const server = new RemoteSimServer({ sim: new RemoteSim({ clock: systemClock, random: seededRandom(42) }), logger });
 * const port = await server.start(0, '127.0.0.1');
 * // ... fetch(`http://127.0.0.1:${port}/services/payment/charge`, ...)
 * await server.close();
 * ```
 */
export class RemoteSimServer {
  /** Name shown by `installShutdown` when it closes this server. */
  readonly name = 'remote-sim-server';
  private readonly sim: RemoteSim;
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly held = new Set<HeldRequest>();
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: RemoteSimServerOptions) {
    this.sim = options.sim;
    this.logger = options.logger;
    this.maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
    this.sim.onRelease((service) => this.releaseHeld(service));
  }

  /** Listens on `port` (0 picks a free one) and resolves with the bound port. */
  async start(port: number, host = '127.0.0.1'): Promise<number> {
    if (this.server !== undefined) throw new Error('RemoteSimServer already started; create a new server to listen again');
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => this.fail(res, ensureError(err)));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return (server.address() as AddressInfo).port;
  }

  /** Requests held right now (hanging or delayed); tests poll it to see a hang released. */
  get heldRequests(): number {
    return this.held.size;
  }

  /**
   * Stops listening, drops every held request (the client sees the connection end, as when a real
   * remote goes away) and closes idle keep-alive connections. Idempotent: every call gets the same
   * promise.
   */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const server = this.server;
      if (server === undefined) return resolve();
      server.close(() => resolve());
      for (const entry of this.held) {
        clearTimeout(entry.timer);
        entry.res.destroy();
      }
      this.held.clear();
      server.closeAllConnections();
    });
    return this.closing;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body;
    try {
      body = await readBody(req, this.maxBodyBytes);
    } catch (err) {
      // The client went away mid-body: nobody is left to answer, and that is not our failure.
      this.logger.debug({ err: ensureError(err) }, 'request aborted while reading its body');
      return;
    }
    if (!body.ok) {
      const error = `Request body exceeds ${this.maxBodyBytes} bytes; send a smaller payload`;
      write(res, { kind: 'answer', status: 413, headers: { Connection: 'close' }, body: { error }, delayMs: 0 });
      return;
    }
    const response = routeRequest(this.sim, {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      idempotencyKey: header(req, 'idempotency-key'),
      compensatesKey: header(req, compensatesIdempotencyKeyHeader.toLowerCase()),
      body: parseJsonBody(body.text),
    });
    if (response.arrivalId !== undefined) {
      const arrivalId = response.arrivalId;
      // 'close' before 'finish': the client left (or the server closed) before the answer was written.
      res.once('finish', () => this.sim.answered(arrivalId));
      res.once('close', () => {
        if (!res.writableFinished) this.sim.abandoned(arrivalId);
      });
    }
    if (response.kind === 'hang') {
      this.hold(res);
    } else if (response.heldFor !== undefined) {
      // The injected latency still applies, counted from the release.
      this.hold(res).release = { service: response.heldFor, response };
    } else if (response.delayMs > 0) {
      this.delay(this.hold(res), response);
    } else {
      write(res, response);
    }
  }

  private hold(res: ServerResponse): HeldRequest {
    const entry: HeldRequest = { res, timer: undefined };
    this.held.add(entry);
    // 'close' fires when the client aborts (or the answer is finished): stop holding either way.
    res.once('close', () => {
      clearTimeout(entry.timer);
      this.held.delete(entry);
    });
    return entry;
  }

  private delay(entry: HeldRequest, response: Extract<SimResponse, { kind: 'answer' }>): void {
    if (response.delayMs <= 0) {
      this.held.delete(entry);
      write(entry.res, response);
      return;
    }
    entry.timer = setTimeout(() => {
      this.held.delete(entry);
      write(entry.res, response);
    }, response.delayMs);
  }

  // Writes (after their latency) the answers held for `service`; returns how many.
  private releaseHeld(service: RemoteServiceName): number {
    let released = 0;
    for (const entry of this.held) {
      const hold = entry.release;
      if (hold?.service !== service || hold.response.kind !== 'answer') continue;
      entry.release = undefined;
      released += 1;
      this.delay(entry, hold.response);
    }
    return released;
  }

  private fail(res: ServerResponse, err: Error): void {
    this.logger.error({ err }, 'request failed');
    const error = `remote-sim failed to handle the request (${err.message}); see its log`;
    write(res, { kind: 'answer', status: 500, headers: {}, body: { error }, delayMs: 0 });
  }
}

// Node joins a repeated header into one string (only set-cookie arrives as an array).
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function write(res: ServerResponse, response: SimResponse): void {
  if (response.kind !== 'answer' || res.destroyed || res.headersSent) return;
  res.writeHead(response.status, { 'content-type': 'application/json', ...response.headers });
  res.end(JSON.stringify(response.body));
}
