import type { OutputLine, ServiceProcess } from '@sas/stack';
import { FaultProxy, waitFor } from '@sas/testkit';

/** How long each partition test cuts its link (issue 21). */
export const CUT_MS = 10_000;

/**
 * How soon after the heal a service is ready again and answers (an operator command), as the
 * partition tests require (docs/liveness.md): a silent Redis connection is dropped and reopened
 * every REDIS_STALL_MS (3 s) while the cut lasts, so the first one opened after the heal succeeds
 * (at most 3 s + a 1 s heartbeat + a 2 s reconnect delay), and MongoDB's heartbeat (2 s) and the
 * store's ping notice the healed server within a few seconds. Measured: 1.3–5 s on a loaded
 * 2-core machine; the bound leaves more than twice that. Without the drop, recovery waits for the
 * 15 s socket timeout and took 15–26 s.
 */
export const RECOVERY_BOUND_MS = 12_000;

/**
 * Every order ends within this after the heal: recovery, then the orders' own steps, where a
 * dispatch lost in the cut waits for its complete-by (6 s in `steady-fulfilment`) and a sweep.
 */
export const ORDERS_BOUND_MS = 40_000;

/** A proxy in front of the single host of `url` (redis:// or mongodb://), and the same URL through it. */
export async function proxied(url: string): Promise<{ proxy: FaultProxy; url: string }> {
  const match = /^([a-z+]+:\/\/(?:[^@/]*@)?)([^:/,?]+):(\d+)(.*)$/.exec(url);
  if (!match) throw new Error(`cannot put a proxy in front of '${url}': expected one host:port`);
  const [, scheme, host, port, rest] = match as unknown as [string, string, string, string, string];
  const proxy = await FaultProxy.start({ target: { host, port: Number(port) } });
  return { proxy, url: `${scheme}127.0.0.1:${proxy.port}${rest}` };
}

/** The `/readyz` status of a service started with PROBE_PORT=0, or of the dashboard (its ready line names the port). */
async function readyz(service: ServiceProcess, readyMessage: string): Promise<number> {
  const line = service.lines.find((l) => l.json?.['msg'] === readyMessage);
  const port = Number(line?.json?.['probePort'] ?? line?.json?.['port']);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`${service.name} logged no probePort in '${readyMessage}'; start it with PROBE_PORT=0`);
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
  return res.status;
}

/** The first line after `from` (an index into `service.lines`) that matches, waiting up to `timeoutMs`. */
function lineAfter(service: ServiceProcess, from: number, predicate: (l: OutputLine) => boolean, timeoutMs: number, description: string): Promise<OutputLine> {
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
  try {
    await options.during();
    const left = (): number => Math.max(1, cutAt + CUT_MS - Date.now());
    const stallLine = await lineAfter(service, from, options.stall, left(), `${options.stallDescription}, logged during the cut`);
    await waitFor(async () => (await readyz(service, options.readyMessage)) === 503, { timeoutMs: left(), intervalMs: 200, description: `${service.name} /readyz 503 during the cut` });
    const unreadyAt = Date.now();
    // The cut lasts its full length whatever the test saw: the fault, not a stand-in for a condition.
    await new Promise((resolve) => setTimeout(resolve, left()));
    proxy.set({ kind: 'pass' });
    return { cutAt, healAt: Date.now(), stallLine, unreadyAt };
  } finally {
    // Healed whatever failed, so the next case of a shared stack starts on a working link.
    proxy.set({ kind: 'pass' });
  }
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
