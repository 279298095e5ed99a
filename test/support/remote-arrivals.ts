import type { LedgerArrival } from './ledger-checks';
import type { SystemFixture } from './system-fixture';

/**
 * Role environment with remote-sim in its `plain` mode (no tombstones): the end-to-end checks of
 * the engine's guarantees run against a remote that does not make them true on its behalf.
 */
export function withPlainRemote(roleEnv: Partial<Record<string, NodeJS.ProcessEnv>>): Partial<Record<string, NodeJS.ProcessEnv>> {
  return { ...roleEnv, 'remote-sim': { ...roleEnv['remote-sim'], REMOTE_SIM_MODE: 'plain' } };
}

/**
 * remote-sim's arrivals of the listed orders, in arrival order. Throws when remote-sim does not run
 * in the `plain` mode, where a check over them would test the remote's protection instead.
 */
export async function plainArrivals(fx: SystemFixture, orderIds: readonly string[]): Promise<LedgerArrival[]> {
  const body = (await fx.remote('/arrivals')) as { mode: string; arrivals: LedgerArrival[] };
  if (body.mode !== 'plain') throw new Error(`remote-sim runs in the '${body.mode}' mode; start it with withPlainRemote(...) for this check`);
  const orders = new Set(orderIds);
  return body.arrivals.filter((a) => orders.has(a.orderId));
}
