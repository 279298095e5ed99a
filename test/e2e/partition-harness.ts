import type { OutputLine, ServiceProcess } from '@sas/stack';
import { FaultProxy, waitFor } from '@sas/testkit';

/** How long each partition test cuts its link (issue 21). */
export const CUT_MS = 10_000;

/**
 * Recovery bounds the partition tests hold a service to, counted from the heal (docs/liveness.md):
 * a consumer's connections are dropped and reopened within REDIS_CONSUMER_TIMEOUT_MS (15 s) of
 * their last reply, and MongoDB calls fail within MONGO_SOCKET_TIMEOUT_MS (20 s) and are retried,
 * so 30 s after the heal the service answers again, with room for a loaded machine.
 */
export const RECOVERY_BOUND_MS = 30_000;

/** Every order ends within this after the heal (recovery, then the orders' own steps and sweeps). */
export const ORDERS_BOUND_MS = 60_000;

/** A proxy in front of the single host of `url` (redis:// or mongodb://), and the same URL through it. */
export async function proxied(url: string): Promise<{ proxy: FaultProxy; url: string }> {
  const match = /^([a-z+]+:\/\/(?:[^@/]*@)?)([^:/,?]+):(\d+)(.*)$/.exec(url);
  if (!match) throw new Error(`cannot put a proxy in front of '${url}': expected one host:port`);
  const [, scheme, host, port, rest] = match as unknown as [string, string, string, string, string];
  const proxy = await FaultProxy.start({ target: { host, port: Number(port) } });
  return { proxy, url: `${scheme}127.0.0.1:${proxy.port}${rest}` };
}

/** The `/readyz` status of a service started with PROBE_PORT=0 (its ready line names the port). */
export async function readyz(service: ServiceProcess, readyMessage: string): Promise<number> {
  const line = service.lines.find((l) => l.json?.['msg'] === readyMessage);
  const port = Number(line?.json?.['probePort']);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`${service.name} logged no probePort in '${readyMessage}'; start it with PROBE_PORT=0`);
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
  return res.status;
}

/** The first line after `from` (an index into `service.lines`) that matches, waiting up to `timeoutMs`. */
export function lineAfter(service: ServiceProcess, from: number, predicate: (l: OutputLine) => boolean, timeoutMs: number, description: string): Promise<OutputLine> {
  return waitFor(() => service.lines.slice(from).find(predicate), { timeoutMs, intervalMs: 100, description: `${service.name}: ${description}` });
}

/** What a cut showed while it lasted, and when it was healed. */
export interface CutRecord {
  cutAt: number;
  healAt: number;
  stallLine: OutputLine;
  unreadyAt: number;
}

/**
 * Blackholes `proxy` for {@link CUT_MS} while `during` runs, requires that `service` logs a stall
 * matching `stall` and answers `/readyz` 503 before the heal, then heals.
 */
export async function cutAndHeal(options: {
  proxy: FaultProxy;
  service: ServiceProcess;
  readyMessage: string;
  stall: (l: OutputLine) => boolean;
  stallDescription: string;
  during: () => Promise<void>;
}): Promise<CutRecord> {
  const { proxy, service } = options;
  const from = service.lines.length;
  proxy.set({ kind: 'blackhole' });
  const cutAt = Date.now();
  await options.during();
  const left = (): number => Math.max(1, cutAt + CUT_MS - Date.now());
  const stallLine = await lineAfter(service, from, options.stall, left(), `${options.stallDescription}, logged during the cut`);
  await waitFor(async () => (await readyz(service, options.readyMessage)) === 503, { timeoutMs: left(), intervalMs: 200, description: `${service.name} /readyz 503 during the cut` });
  const unreadyAt = Date.now();
  // The cut lasts its full length whatever the test saw: the fault, not a stand-in for a condition.
  await new Promise((resolve) => setTimeout(resolve, left()));
  proxy.set({ kind: 'pass' });
  return { cutAt, healAt: Date.now(), stallLine, unreadyAt };
}

/** Waits until `/readyz` answers 200 again; returns when (epoch ms). */
export async function readyAgain(service: ServiceProcess, readyMessage: string, healAt: number): Promise<number> {
  await waitFor(async () => (await readyz(service, readyMessage).catch(() => 0)) === 200, {
    timeoutMs: Math.max(1, healAt + RECOVERY_BOUND_MS - Date.now()),
    intervalMs: 200,
    description: `${service.name} /readyz 200 within ${RECOVERY_BOUND_MS} ms of the heal`,
  });
  return Date.now();
}
