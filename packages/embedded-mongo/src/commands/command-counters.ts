import type { Doc } from '../bson/bson-types';
import type { CommandContext } from './command-context';
import { SERVER_VERSION } from './handshake-commands';

/** The `opcounters` field each command adds to, as in MongoDB (every other command counts as `command`). */
const OPCOUNTER_OF: Readonly<Record<string, string>> = { insert: 'insert', find: 'query', update: 'update', delete: 'delete', getMore: 'getmore' };

/**
 * Commands run since the server started, by name, answered through `serverStatus` in MongoDB's
 * shape (`opcounters`, `metrics.commands.<name>.{total,failed}`), so that a benchmark or an
 * operator counts the work per order the same way against this server and a real `mongod`.
 * Unlike MongoDB, `opcounters` counts commands, not documents or statements.
 */
export class CommandCounters {
  private readonly startedAt = Date.now();
  private readonly byName = new Map<string, { total: number; failed: number }>();

  count(name: string, failed: boolean): void {
    let entry = this.byName.get(name);
    if (entry === undefined) {
      entry = { total: 0, failed: 0 };
      this.byName.set(name, entry);
    }
    entry.total += 1;
    if (failed) entry.failed += 1;
  }

  /** The reply to `serverStatus`: identity, uptime and the counters; the sections this server has nothing for are absent. */
  serverStatus(ctx: CommandContext): Doc {
    const opcounters: Record<string, number> = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
    const commands: Doc = {};
    for (const [name, { total, failed }] of this.byName) {
      const counter = OPCOUNTER_OF[name] ?? 'command';
      opcounters[counter] = (opcounters[counter] ?? 0) + total;
      commands[name] = { total, failed };
    }
    const now = ctx.now();
    return {
      host: 'embedded',
      version: SERVER_VERSION,
      process: 'mongod',
      pid: process.pid,
      uptime: Math.floor((now.getTime() - this.startedAt) / 1000),
      uptimeMillis: now.getTime() - this.startedAt,
      localTime: now,
      opcounters,
      metrics: { commands },
      ok: 1,
    };
  }
}
