import { createServer, type Server, type Socket } from 'node:net';
import { CommandDispatcher } from './commands/command-dispatcher';
import { CursorManager } from './cursors/cursor-manager';
import { ReplicaSetMember } from './replication/replica-set-member';
import { RetryableWriteLog } from './replication/retryable-write-log';
import type { LogLevel, LogSink } from './log-sink';
import { Catalog } from './storage/catalog';
import type { QueryStats } from './storage/collection-store';
import { TtlMonitor } from './storage/ttl-monitor';
import { WireConnection } from './wire/wire-connection';

/** Options of {@link EmbeddedMongoServer}. */
export interface EmbeddedMongoOptions {
  /** TCP port; 0 picks a free port. @default 0 */
  port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** How often the TTL monitor removes expired documents. @default 1000 (real MongoDB: 60 s) */
  ttlMonitorIntervalMs?: number;
  /**
   * Answer as the one member of a replica set of this name (`mongodb://…/?replicaSet=<name>`
   * then works, and drivers retry writes), instead of as a standalone. Needed for
   * {@link EmbeddedMongoServer.stepDown} and `replSetStepDown`. @default undefined (standalone)
   */
  replicaSet?: string;
  /** Optional structured log sink. */
  log?: (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * An in-memory MongoDB that the official driver reaches over TCP, for tests and the local
 * one-command run where no MongoDB server can be installed (see DESIGN.md, "MongoDB for tests
 * and the local default"). It implements exactly the commands this project uses and answers
 * everything else with MongoDB's own errors; a conformance suite holds it to real MongoDB.
 *
 * @example
 * ```ts
 * const server = new EmbeddedMongoServer();
 * const { url } = await server.start();
 * const client = await MongoClient.connect(url);
 * // ...
 * await client.close();
 * await server.close();
 * ```
 */
export class EmbeddedMongoServer {
  private readonly options: Required<Omit<EmbeddedMongoOptions, 'log' | 'replicaSet'>>;
  private readonly replication: ReplicaSetMember;
  private readonly retryableWrites = new RetryableWriteLog();
  private readonly log: LogSink;
  private readonly catalog = new Catalog();
  private readonly cursors = new CursorManager(() => Date.now());
  private readonly dispatcher: CommandDispatcher;
  private readonly ttl: TtlMonitor;
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private address: { port: number; url: string } | undefined;
  private closing: Promise<void> | undefined;
  private nextConnectionId = 1;

  constructor(options: EmbeddedMongoOptions = {}) {
    const ttlMonitorIntervalMs = options.ttlMonitorIntervalMs ?? 1000;
    if (!Number.isFinite(ttlMonitorIntervalMs) || ttlMonitorIntervalMs <= 0) {
      throw new RangeError(
        `ttlMonitorIntervalMs must be a positive number of milliseconds (got ${ttlMonitorIntervalMs})`,
      );
    }
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new RangeError(`port must be an integer from 0 to 65535 (got ${port}); use 0 for a free port`);
    }
    this.options = { port, host: options.host ?? '127.0.0.1', ttlMonitorIntervalMs };
    this.log = options.log ?? (() => undefined);
    if (options.replicaSet !== undefined && !/^[A-Za-z0-9_-]+$/.test(options.replicaSet)) {
      throw new RangeError(`replicaSet must be a name of letters, digits, '_' and '-' (got '${options.replicaSet}')`);
    }
    this.replication = new ReplicaSetMember(options.replicaSet, () => Date.now());
    this.dispatcher = new CommandDispatcher((error, command) =>
      this.log('error', 'internal error while running a command', {
        command,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
    );
    this.ttl = new TtlMonitor(
      this.catalog,
      ttlMonitorIntervalMs,
      () => Date.now(),
      (removed, error) => {
        if (error !== undefined) this.log('error', 'TTL sweep failed', { error: String(error) });
        else if (removed > 0) this.log('debug', 'TTL monitor removed expired documents', { removed });
      },
    );
  }

  /** Starts listening; resolves with the port and a `mongodb://` URL for the driver. */
  async start(): Promise<{ port: number; url: string }> {
    if (this.closing) throw new Error('EmbeddedMongoServer was closed; create a new instance to start again');
    if (this.address) return this.address;
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = server.address();
    if (bound === null || typeof bound === 'string')
      throw new Error('EmbeddedMongoServer could not read its bound TCP address');
    const host = `${urlHost(this.options.host)}:${bound.port}`;
    this.replication.listeningOn(host);
    this.address = { port: bound.port, url: `mongodb://${host}/?directConnection=true` };
    this.ttl.start();
    this.log('info', 'embedded MongoDB listening', { url: this.address.url });
    return this.address;
  }

  /** The driver URL (`mongodb://host:port/?directConnection=true`); throws before {@link start} resolved. */
  get url(): string {
    if (!this.address)
      throw new Error('EmbeddedMongoServer is not started; await start() before reading url');
    return this.address.url;
  }

  /**
   * How a collection's queries were answered: the last plan (`COLLSCAN`, `IDHACK`, `IXSCAN <index>`)
   * and the documents read so far. For tests that assert an index is used, in place of `explain`.
   */
  queryStats(db: string, collection: string): QueryStats | undefined {
    return this.catalog.get(db, collection)?.queryStats;
  }

  /**
   * Steps the primary down for `forMs`, as an election does: `hello` reports a secondary and
   * writes answer NotWritablePrimary (10107, labelled RetryableWriteError for a retryable write);
   * reads still work. Afterwards the member is primary again, in a new term. The same switch is
   * reachable from another process as `replSetStepDown` on the admin database. Only with
   * `replicaSet` set: a standalone cannot step down. Returns when it will be primary again.
   */
  stepDown(forMs: number): Date {
    const until = this.replication.stepDown(forMs);
    this.log('info', 'embedded MongoDB stepped down', { until: until.toISOString() });
    return until;
  }

  private accept(socket: Socket): void {
    const connectionId = this.nextConnectionId++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    const context = {
      catalog: this.catalog,
      cursors: this.cursors,
      replication: this.replication,
      retryableWrites: this.retryableWrites,
      connectionId,
      now: () => new Date(),
    };
    new WireConnection(socket, context, this.dispatcher, this.log);
    this.log('debug', 'client connected', { connectionId, remote: socket.remoteAddress });
  }

  /** Stops listening, destroys open client sockets and stops the TTL monitor. Idempotent: every call returns the same promise. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.ttl.stop();
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (server?.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.log('info', 'embedded MongoDB closed', {});
  }
}
