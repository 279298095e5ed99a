import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * What a {@link FaultProxy} does to the bytes of its link:
 * - `pass`: forwards them;
 * - `blackhole`: keeps every connection open (and accepts new ones) but drops every byte both
 *   ways, as a half-open link behind a load balancer, a NAT or a sidecar does;
 * - `reset`: resets every open connection (TCP RST) and every new one while it lasts;
 * - `delay`: forwards them `delayMs` late, in order.
 */
export type FaultMode = { kind: 'pass' } | { kind: 'blackhole' } | { kind: 'reset' } | { kind: 'delay'; delayMs: number };

/** Options of {@link FaultProxy.start}. */
export interface FaultProxyOptions {
  /** Where the link leads (a Redis, a MongoDB, a remote service). */
  target: { host: string; port: number };
  /** @default 0, a free port */
  port?: number;
}

interface Chunk {
  bytes: Buffer;
  at: number;
}

/** One direction of one connection: chunks leave in order, each not before its time. */
class Pipe {
  private readonly queue: Chunk[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly to: Socket) {}

  push(bytes: Buffer, delayMs: number): void {
    const last = this.queue[this.queue.length - 1];
    // Never before a chunk already waiting: a delay ended mid-stream must not reorder the bytes.
    this.queue.push({ bytes, at: Math.max(Date.now() + delayMs, last?.at ?? 0) });
    this.pump();
  }

  private pump(): void {
    if (this.timer) return;
    while (this.queue.length > 0 && this.queue[0]!.at <= Date.now()) {
      const chunk = this.queue.shift()!;
      if (!this.to.destroyed) this.to.write(chunk.bytes);
    }
    const head = this.queue[0];
    if (head) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, head.at - Date.now());
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

/**
 * A TCP proxy of our own for partition tests (toxiproxy is not available here): a service is
 * pointed at {@link url}-style `127.0.0.1:port` instead of its Redis or MongoDB, and the test
 * switches the link's {@link FaultMode} while the service runs.
 *
 * @example
 * ```ts
 * const proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: redisPort } });
 * await stack.spawn('scheduler', { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
 * proxy.set({ kind: 'blackhole' }); // ... 10 s later:
 * proxy.set({ kind: 'pass' });
 * await proxy.stop();
 * ```
 */
export class FaultProxy {
  private mode: FaultMode = { kind: 'pass' };
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; pipes: Pipe[] }>();
  private accepted = 0;
  private bytesFromClients = 0;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** Listens on loopback; resolves once it accepts connections. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, options.target);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The port to point a service at. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.pairs.size;
  }

  /** Connections accepted since the start. */
  get acceptedConnections(): number {
    return this.accepted;
  }

  /** Bytes received from clients so far (forwarded or not), so a test knows its bytes reached the proxy. */
  get clientBytes(): number {
    return this.bytesFromClients;
  }

  /** The current mode. */
  get current(): FaultMode {
    return this.mode;
  }

  /** Switches the link at once; `reset` resets every open connection now. */
  set(mode: FaultMode): void {
    this.mode = mode;
    if (mode.kind === 'reset') for (const pair of [...this.pairs]) this.drop(pair, true);
  }

  private accept(client: Socket): void {
    this.accepted += 1;
    if (this.mode.kind === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    const pair = { client, upstream, pipes: [new Pipe(upstream), new Pipe(client)] };
    this.pairs.add(pair);
    const [toUpstream, toClient] = pair.pipes as [Pipe, Pipe];
    // Bytes from the client wait in the pipe while the upstream connects (writes to a connecting socket are buffered).
    client.on('data', (bytes: Buffer) => {
      this.bytesFromClients += bytes.length;
      this.forward(toUpstream, bytes);
    });
    upstream.on('data', (bytes: Buffer) => this.forward(toClient, bytes));
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => this.drop(pair, false));
      socket.on('close', () => this.drop(pair, false));
    }
  }

  private forward(pipe: Pipe, bytes: Buffer): void {
    const mode = this.mode;
    if (mode.kind === 'blackhole' || mode.kind === 'reset') return;
    pipe.push(bytes, mode.kind === 'delay' ? mode.delayMs : 0);
  }

  private drop(pair: { client: Socket; upstream: Socket; pipes: Pipe[] }, reset: boolean): void {
    if (!this.pairs.delete(pair)) return;
    for (const pipe of pair.pipes) pipe.stop();
    for (const socket of [pair.client, pair.upstream]) {
      if (reset && !socket.destroyed) socket.resetAndDestroy();
      else socket.destroy();
    }
  }

  /** Closes every connection and stops listening. Idempotent. */
  stop(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      for (const pair of [...this.pairs]) this.drop(pair, false);
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}
