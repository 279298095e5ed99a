import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { parseClusterNodes, type ClusterNode } from './cluster-nodes';
import { findOnPath } from './find-on-path';
import { freePort } from './free-port';
import { silentLog, type LogFn } from './log-fn';
import { rawRedisCommand } from './raw-redis-command';
import { REDIS_NOT_FOUND_MESSAGE, RedisServerProcess, temporaryRedisDir } from './redis-server';

const run = promisify(execFile);

/** Options of {@link startRedisCluster}. */
export interface RedisClusterOptions {
  /** Masters, each serving an equal share of the 16384 slots. 1, or 3 and more (`redis-cli --cluster create`'s minimum). @default 3 */
  masters?: number;
  /** Replicas of each master; a master's failover needs at least one. @default 1 */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout`: how long a node may not answer before it is suspected, and so roughly
   * how long a failover takes. Short enough for a test, long enough that a loaded 2-core machine
   * does not fail a busy master over by mistake. @default 3000
   */
  nodeTimeoutMs?: number;
  /** How long the cluster may take to form, and a failover to finish. @default 60000 */
  readyTimeoutMs?: number;
  log?: LogFn;
}

/** What {@link RedisCluster.killMaster} did. */
export interface MasterFailover {
  /** The port of the master that got `kill -9`. */
  killedPort: number;
  /** The port of its replica that now serves its slots. */
  promotedPort: number;
  /**
   * Replication offsets around the kill, to tell whether writes the master had taken were lost with
   * it: `masterOffsetAtKill` is the master's `master_repl_offset` read just before the kill (a lower
   * bound of what it had taken), `promotedFromOffset` the offset the replica had reached when it was
   * promoted (its `second_repl_offset` minus 1). A positive `lostBytes` (their difference) means
   * the replica took over without writes the master had already applied, and may have acknowledged.
   * Undefined where a node did not answer.
   */
  replication: { masterOffsetAtKill?: number; promotedFromOffset?: number; lostBytes?: number };
}

/** A private Redis Cluster started by {@link startRedisCluster}. */
export interface RedisCluster {
  /** `redis-cluster://127.0.0.1:<port>,...` with every node as a seed, for REDIS_URL. */
  readonly url: string;
  /** Ports of every node started, masters first as created. */
  readonly ports: readonly number[];
  /** Ports of the masters serving slots now, lowest first. */
  masterPorts(): Promise<number[]>;
  /** The index in {@link masterPorts} of the master serving `key`'s slot (its hash tag's, when it has one). */
  masterIndexServing(key: string): Promise<number>;
  /**
   * `kill -9` of the `index`-th master of {@link masterPorts}, then waits until its replica was
   * promoted and every node left reports `cluster_state:ok`. The killed node stays down.
   */
  killMaster(index: number): Promise<MasterFailover>;
  /** Stops every node and removes their directories. Never throws. */
  stop(): Promise<void>;
}

/**
 * Starts a real Redis Cluster on 127.0.0.1: `masters × (1 + replicasPerMaster)` processes of
 * `redis-server --cluster-enabled yes`, joined with `redis-cli --cluster create` (a single master
 * is given every slot itself), and resolves once every node reports `cluster_state:ok` with all
 * slots served and every replica in sync with its master. Each node has its own data port and
 * cluster-bus port, both picked free.
 *
 * @example
 * ```ts
 * const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
 * const env = { REDIS_URL: cluster.url };
 * const { killedPort, promotedPort } = await cluster.killMaster(0);
 * await cluster.stop();
 * ```
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  if (!findOnPath('redis-server')) throw new Error(REDIS_NOT_FOUND_MESSAGE);
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  if (!(masters === 1 || masters >= 3)) throw new Error(`startRedisCluster: masters must be 1, or 3 and more (got ${masters}); redis-cli --cluster create needs 3`);
  if (masters === 1 && replicas > 0) throw new Error('startRedisCluster: replicas need masters ≥ 3 (redis-cli --cluster create); start 1 master without replicas');
  if (masters >= 3 && !findOnPath('redis-cli')) throw new Error('redis-cli not found on PATH; it comes with redis-server (Debian: apt-get install redis-tools)');
  const cluster = new LocalRedisCluster(options);
  try {
    await cluster.start(masters, replicas);
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

class LocalRedisCluster implements RedisCluster {
  private readonly nodes: RedisServerProcess[] = [];
  private readonly dirs: string[] = [];
  private readonly log: LogFn;
  private readonly readyTimeoutMs: number;
  private readonly killed = new Set<number>();

  constructor(private readonly options: RedisClusterOptions) {
    this.log = options.log ?? silentLog;
    this.readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  }

  get ports(): number[] {
    return this.nodes.map((n) => n.port);
  }

  get url(): string {
    return `redis-cluster://${this.ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
  }

  async start(masters: number, replicas: number): Promise<void> {
    const count = masters * (1 + replicas);
    for (let i = 0; i < count; i++) this.nodes.push(await this.startNode());
    if (masters === 1) {
      await this.command(this.ports[0] as number, 'CLUSTER ADDSLOTSRANGE 0 16383', '+OK');
    } else {
      const addresses = this.ports.map((p) => `127.0.0.1:${p}`);
      await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: this.readyTimeoutMs });
    }
    await this.waitUntil('the cluster to form', async () => this.healthy(masters, masters * replicas));
    this.log('Redis: private cluster started', { url: this.url, masters, replicasPerMaster: replicas });
  }

  /** One node on free ports; tried again on other ports when another process took one first. */
  private async startNode(): Promise<RedisServerProcess> {
    for (let attempt = 1; ; attempt++) {
      const dir = temporaryRedisDir();
      this.dirs.push(dir);
      const [port, busPort] = await distinctFreePorts(2);
      const node = new RedisServerProcess(port as number, dir, {
        dir,
        log: this.log,
        extraArgs: [
          ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort)],
          // A node learns its own address from the nodes that meet it; a lone master never would, and
          // would announce an empty host in CLUSTER SLOTS.
          ...['--cluster-announce-ip', '127.0.0.1'],
          ...['--cluster-node-timeout', String(this.options.nodeTimeoutMs ?? 3000)],
          // A replica must take over however long it was cut off: the tests kill masters on purpose.
          ...['--cluster-replica-validity-factor', '0'],
        ],
      });
      try {
        await node.start();
        return node;
      } catch (error) {
        if (attempt >= 3 || !node.lostPortRace()) throw error;
      }
    }
  }

  async masterPorts(): Promise<number[]> {
    const nodes = await this.view();
    return nodes.filter((n) => n.role === 'master' && !n.failing && n.slots > 0).map((n) => n.port).sort((a, b) => a - b);
  }

  async masterIndexServing(key: string): Promise<number> {
    if (/\s/.test(key)) throw new Error(`masterIndexServing: '${key}' has a space; pass a key without one`);
    const [port] = this.livePorts();
    const reply = await rawRedisCommand(port as number, `CLUSTER KEYSLOT ${key}`, 2000);
    const slot = Number(reply?.slice(1));
    if (!reply?.startsWith(':') || !Number.isInteger(slot)) throw new Error(`CLUSTER KEYSLOT ${key} answered '${String(reply)}'`);
    const masters = (await this.view()).filter((n) => n.role === 'master' && !n.failing && n.slots > 0).sort((a, b) => a.port - b.port);
    const index = masters.findIndex((m) => m.ranges.some(([from, to]) => slot >= from && slot <= to));
    if (index < 0) throw new Error(`no live master serves slot ${slot} of '${key}'`);
    return index;
  }

  async killMaster(index: number): Promise<MasterFailover> {
    const masters = await this.masterPorts();
    const killedPort = masters[index];
    if (killedPort === undefined) throw new Error(`killMaster(${index}): the cluster has ${masters.length} masters (${masters.join(', ')})`);
    const before = await this.view();
    const victim = before.find((n) => n.port === killedPort);
    const replicasOfVictim = before.filter((n) => n.role === 'replica' && n.masterId === victim?.id && !n.failing);
    if (replicasOfVictim.length === 0) throw new Error(`killMaster(${index}): master ${killedPort} has no replica in sync to take over`);
    const node = this.nodes.find((n) => n.port === killedPort);
    const masterOffsetAtKill = infoField(await rawRedisCommand(killedPort, 'INFO replication', 2000), 'master_repl_offset');
    await node?.kill('SIGKILL');
    this.killed.add(killedPort);
    this.log('Redis: cluster master killed (kill -9)', { port: killedPort });
    const replicaPorts = new Set(replicasOfVictim.map((n) => n.port));
    const promotedPort = await this.waitUntil(`a replica of ${killedPort} to take over its slots`, async () => {
      const nodes = await this.view();
      const promoted = nodes.find((n) => replicaPorts.has(n.port) && n.role === 'master' && n.slots > 0);
      if (!promoted || !(await this.everyLiveNodeOk())) return undefined;
      return promoted.port;
    });
    const second = infoField(await rawRedisCommand(promotedPort, 'INFO replication', 2000), 'second_repl_offset');
    const promotedFromOffset = second !== undefined && second > 0 ? second - 1 : undefined;
    const lostBytes = masterOffsetAtKill !== undefined && promotedFromOffset !== undefined ? masterOffsetAtKill - promotedFromOffset : undefined;
    const replication = { ...(masterOffsetAtKill !== undefined ? { masterOffsetAtKill } : {}), ...(promotedFromOffset !== undefined ? { promotedFromOffset } : {}), ...(lostBytes !== undefined ? { lostBytes } : {}) };
    this.log('Redis: cluster failover done', { killedPort, promotedPort, ...replication });
    return { killedPort, promotedPort, replication };
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.nodes.map((n) => n.stop()));
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }

  private livePorts(): number[] {
    return this.ports.filter((p) => !this.killed.has(p));
  }

  /** The cluster as the first live node that answers sees it. */
  private async view(): Promise<ClusterNode[]> {
    for (const port of this.livePorts()) {
      const text = await rawRedisCommand(port, 'CLUSTER NODES', 2000);
      if (text !== undefined && !text.startsWith('-')) return parseClusterNodes(text);
    }
    throw new Error(`no node of the Redis cluster answers CLUSTER NODES (ports ${this.livePorts().join(', ')})`);
  }

  private async everyLiveNodeOk(): Promise<boolean> {
    for (const port of this.livePorts()) {
      const info = await rawRedisCommand(port, 'CLUSTER INFO', 2000);
      if (!info?.includes('cluster_state:ok') || !info.includes('cluster_slots_ok:16384')) return false;
    }
    return true;
  }

  private async healthy(masters: number, replicas: number): Promise<boolean> {
    if (!(await this.everyLiveNodeOk())) return false;
    for (const port of this.livePorts()) {
      const nodes = parseClusterNodes((await rawRedisCommand(port, 'CLUSTER NODES', 2000)) ?? '');
      const servingMasters = nodes.filter((n) => n.role === 'master' && n.slots > 0).length;
      const replicaCount = nodes.filter((n) => n.role === 'replica').length;
      if (servingMasters !== masters || replicaCount !== replicas || nodes.some((n) => n.failing)) return false;
      const replication = (await rawRedisCommand(port, 'INFO replication', 2000)) ?? '';
      if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
    }
    return true;
  }

  private async command(port: number, command: string, expected: string): Promise<void> {
    const reply = await rawRedisCommand(port, command, 5000);
    if (reply !== expected) throw new Error(`Redis on port ${port} answered '${String(reply)}' to ${command} (expected ${expected})`);
  }

  /** Polls `probe` until it gives a value (or true), up to the ready timeout; never a fixed sleep. */
  private async waitUntil<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > deadline) {
        const view = await this.view().catch((e: unknown) => String(e));
        throw new Error(`Redis cluster: timed out after ${this.readyTimeoutMs} ms waiting for ${what}. Nodes: ${JSON.stringify(view)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A numeric field of an `INFO` reply (`name:value` lines), or undefined. */
function infoField(info: string | undefined, name: string): number | undefined {
  const match = info?.match(new RegExp(`^${name}:(-?\\d+)`, 'm'));
  return match ? Number(match[1]) : undefined;
}

/** `count` free ports, all different (the OS may hand out a port again once it was closed). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
