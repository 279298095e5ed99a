import { createServer, type Server, type Socket } from 'node:net';
import { CommandDispatcher } from './commands/command-dispatcher';
import { CursorManager } from './cursors/cursor-manager';
import { ReplicaSetMember } from './replication/replica-set-member';
import { RetryableWriteLog } from './replication/retryable-write-log';
import type { LogLevel, LogSink } from './log-sink';
import { Catalog } from './storage/catalog';
import type { QueryStats } from './storage/collection-store';
import { loadDataFile } from './storage/data-file-loader';
import { IN_MEMORY_JOURNAL } from './storage/in-memory-journal';
import type { SyncMode } from './storage/sqlite-data-file';
import type { StorageJournal } from './storage/storage-journal';
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
  /**
   * Keep the state in `<dataDir>/embedded-mongo.sqlite` (created if missing) and read it back
   * on start, instead of in memory only. Every command's changes are committed to that file
   * before its reply is sent, so an acknowledged write survives a kill -9 of the server; the
   * folder is held exclusively while the server runs. Uses Node's built-in `node:sqlite`
   * (Node 22.13+), loaded only in this mode. @default undefined (in memory: a restart loses everything)
   */
  dataDir?: string;
  /**
   * With `dataDir`: `'normal'` commits survive a crash of the process (kill -9), `'full'` also
   * a power loss or OS crash, at the cost of an fsync per command (MongoDB's `j: true`).
   * See the package README. @default 'normal'
   */
  sync?: SyncMode;
  /**
   * Called when the data file can no longer be written (disk full, file removed): the command
   * that hit it was answered with an InternalError and the server is closing, since its memory
   * is now ahead of its file. @default logs the error only
   */
  onFatalError?: (error: Error) => void;
  /** Optional structured log sink. */
  log?: (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * A MongoDB that the official driver reaches over TCP, in memory or (with `dataDir`) kept in a
 * SQLite file, for tests and the local one-command run where no MongoDB server can be installed
 * (see DESIGN.md, "MongoDB for tests and the local default"). It implements exactly the commands
 * this project uses and answers everything else with MongoDB's own errors; a conformance suite
 * holds it to real MongoDB.
 *
 * @example
 * ```ts
 * const server = new EmbeddedMongoServer(); // or { dataDir: '.sas/mongo' } to keep the state on disk
 * const { url } = await server.start();
 * const client = await MongoClient.connect(url);
 * // ...
 * await client.close();
 * await server.close();
 * ```
 */
export class EmbeddedMongoServer {
  private readonly options: Required<Pick<EmbeddedMongoOptions, 'port' | 'host' | 'ttlMonitorIntervalMs' | 'sync'>> &
    Pick<EmbeddedMongoOptions, 'dataDir' | 'onFatalError'>;
  private readonly replication: ReplicaSetMember;
  private readonly log: LogSink;
  // Replaced by what the data file holds when start() opens it (persisted mode).
  private retryableWrites = new RetryableWriteLog();
  private catalog = new Catalog();
  private journal: StorageJournal = IN_MEMORY_JOURNAL;
  private readonly cursors = new CursorManager(() => Date.now());
  private readonly dispatcher: CommandDispatcher;
  private ttl: TtlMonitor | undefined;
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
    const sync = options.sync ?? 'normal';
    if (sync !== 'normal' && sync !== 'full') throw new RangeError(`sync must be 'normal' or 'full' (got '${String(sync)}')`);
    if (options.dataDir === '') throw new RangeError('dataDir must name a folder; leave it unset to keep everything in memory');
    this.options = {
      port,
      host: options.host ?? '127.0.0.1',
      ttlMonitorIntervalMs,
      sync,
      dataDir: options.dataDir,
      onFatalError: options.onFatalError,
    };
    this.log = options.log ?? (() => undefined);
    if (options.replicaSet !== undefined && !/^[A-Za-z0-9_-]+$/.test(options.replicaSet)) {
      throw new RangeError(`replicaSet must be a name of letters, digits, '_' and '-' (got '${options.replicaSet}')`);
    }
    this.replication = new ReplicaSetMember(options.replicaSet, () => Date.now());
    this.dispatcher = new CommandDispatcher(
      (error, command) =>
        this.log('error', 'internal error while running a command', {
          command,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
      () => this.commit(),
    );
  }

  /** Commits the journal; when that fails, the server stops (its memory is ahead of its file) and rethrows. */
  private commit(): void {
    try {
      this.journal.commit();
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (this.closing === undefined) {
        this.log('error', 'the data file could not be written; closing the server', { error: failure.message });
        void this.close();
        this.options.onFatalError?.(failure);
      }
      throw failure;
    }
  }

  /** Reads the data file back (persisted mode); from then on every change is journaled to it. */
  private restoreFromDataFile(dataDir: string): void {
    const started = Date.now();
    const state = loadDataFile(dataDir, this.options.sync);
    this.catalog = state.catalog;
    this.retryableWrites = state.retryableWrites;
    this.journal = state.journal;
    let collections = 0;
    let documents = 0;
    for (const collection of this.catalog.all()) {
      collections++;
      documents += collection.size;
    }
    this.log('info', 'embedded MongoDB data file loaded', {
      file: state.journal.file,
      sync: this.options.sync,
      collections,
      documents,
      ms: Date.now() - started,
    });
  }

  /** Starts listening; resolves with the port and a `mongodb://` URL for the driver. */
  async start(): Promise<{ port: number; url: string }> {
    if (this.closing) throw new Error('EmbeddedMongoServer was closed; create a new instance to start again');
    if (this.address) return this.address;
    if (this.options.dataDir !== undefined && this.journal === IN_MEMORY_JOURNAL) this.restoreFromDataFile(this.options.dataDir);
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.options.port, this.options.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.journal.close();
      throw error;
    }
    const bound = server.address();
    if (bound === null || typeof bound === 'string')
      throw new Error('EmbeddedMongoServer could not read its bound TCP address');
    const host = `${urlHost(this.options.host)}:${bound.port}`;
    this.replication.listeningOn(host);
    this.address = { port: bound.port, url: `mongodb://${host}/?directConnection=true` };
    this.ttl = new TtlMonitor(
      this.catalog,
      this.options.ttlMonitorIntervalMs,
      () => Date.now(),
      (removed, error) => {
        if (error !== undefined) this.log('error', 'TTL sweep failed', { error: String(error) });
        else if (removed > 0) this.log('debug', 'TTL monitor removed expired documents', { removed });
      },
      () => this.commit(),
    );
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

  /**
   * Stops listening, destroys open client sockets, stops the TTL monitor and releases the data
   * file (persisted mode). Idempotent: every call returns the same promise.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.ttl?.stop();
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (server?.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    // Every command committed before its reply, so there is nothing pending to lose here.
    this.journal.close();
    this.log('info', 'embedded MongoDB closed', {});
  }
}
