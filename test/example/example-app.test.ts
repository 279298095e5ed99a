import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSystem, ManagedProcess, type OutputLine } from '@sas/stack';
import { TestStack } from '@sas/testkit';
import { forwardCallsAfterUndo, undosBeforeForwardAnswered, type LedgerArrival } from '../support/ledger-checks';
import { type LocalRegistry, applicationEnv, startLocalRegistry } from '../support/local-registry';
import { WORKSPACE_ROOT, run } from '../support/pack-workspace';

/**
 * `examples/shop` as a team would use it: its own package.json (not a workspace member),
 * installed with npm from a registry holding our published packages (test/support/local-registry.ts), its remotes and its payment agent
 * running from a temp dir, against the sas services as real processes (the warehouse through the
 * built-in HTTP agent and the example's mapping, the workflows from the example's WORKFLOWS_FILE).
 */

const FINAL = ['Processed', 'Compensated', 'Canceled', 'Duplicate', 'Rejected'];

interface WarehouseEffect { effect: 'reserve' | 'release'; orderId: string; requestId: string; reservationId: string; received?: Record<string, unknown> }
interface PaymentEffect { effect: 'charge' | 'refund'; orderId: string; key: string; chargeId: string; answered: boolean; received?: Record<string, unknown> }
/** A call as the payment provider saw it arrive (its `GET /effects` `arrivals`). */
interface PaymentArrival { arrivalId: string; operation: 'charge' | 'refund'; orderId: string | null; key: string; chargeKey?: string; at: number; applied: boolean; answeredAt?: number; abandonedAt?: number }

const progress = (message: string): void => {
  process.stdout.write(`[example-app ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
};

let work: string;
let shop: string;
let registry: LocalRegistry | undefined;
let stack: TestStack;
let system: LocalSystem | undefined;
let paymentAgent: ManagedProcess;
let warehouseUrl: string;
let providerUrl: string;
const processes: ManagedProcess[] = [];

function shopProcess(name: string, args: string[], env: NodeJS.ProcessEnv = {}): ManagedProcess {
  const proc = new ManagedProcess({
    name,
    command: process.execPath,
    args,
    cwd: shop,
    env: { ...stack.env, ...env },
    logFile: join(stack.logDir, `${name}.log`),
  });
  processes.push(proc);
  return proc;
}

/** Starts one of the example's remotes from the temp dir; resolves with its URL. */
async function startRemote(name: string, script: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const proc = shopProcess(name, [script], { PORT: '0', ...env });
  await proc.start();
  const line = await proc.waitForLine((l) => l.json?.['msg'] === 'listening', 10_000, `${name} listening`);
  return String(line.json?.['url']);
}

async function effectsBody<T>(url: string): Promise<{ effects: T[]; repeats?: string[]; arrivals?: PaymentArrival[] }> {
  const res = await fetch(`${url}/effects`);
  if (!res.ok) throw new Error(`GET ${url}/effects: ${res.status}`);
  return (await res.json()) as { effects: T[]; repeats?: string[]; arrivals?: PaymentArrival[] };
}

/** The provider's arrivals in the shape the shared ordering checks read. */
function asLedgerArrivals(arrivals: readonly PaymentArrival[]): LedgerArrival[] {
  return arrivals.map((a) => ({
    arrivalId: a.arrivalId,
    service: 'payment',
    operation: a.operation,
    mode: a.operation === 'refund' ? 'undo' : 'forward',
    orderId: a.orderId ?? '(unknown)',
    idempotencyKey: a.key,
    ...(a.chargeKey === undefined ? {} : { compensates: a.chargeKey }),
    at: a.at,
    outcome: a.applied ? 'applied' : 'not applied',
    applied: a.applied,
    ...(a.answeredAt === undefined ? {} : { answeredAt: a.answeredAt }),
    ...(a.abandonedAt === undefined ? {} : { abandonedAt: a.abandonedAt }),
  }));
}

async function effects<T>(url: string): Promise<T[]> {
  return (await effectsBody<T>(url)).effects;
}

const statusLines = (proc: ManagedProcess): Record<string, unknown>[] =>
  proc.lines.filter((l: OutputLine) => l.json?.['status'] !== undefined).map((l) => l.json as Record<string, unknown>);

/** Runs the example's submitter for `count` orders and returns its summary (orderId → final status). */
async function submit(name: string, count: number, env: NodeJS.ProcessEnv, onStarted?: (proc: ManagedProcess) => Promise<void>): Promise<Record<string, string>> {
  const proc = shopProcess(name, ['submit.js', String(count)], { ORDER_PREFIX: name, TIMEOUT_MS: '60000', ...env });
  await proc.start();
  await onStarted?.(proc);
  const exit = await proc.whenExited();
  const summary = proc.lines.find((l) => l.json?.['summary'])?.json?.['summary'] as Record<string, string> | undefined;
  if (exit?.code !== 0 || !summary) throw new Error(`${name} exited ${String(exit?.code)}:\n${proc.describeLastLines(30)}`);
  progress(`${name}: ${JSON.stringify(summary)}`);
  return summary;
}

beforeAll(async () => {
  const started = Date.now();
  work = mkdtempSync(join(tmpdir(), 'sas-example-'));
  registry = await startLocalRegistry(progress);
  shop = join(work, 'shop');
  cpSync(join(WORKSPACE_ROOT, 'examples', 'shop'), shop, { recursive: true, filter: (src) => !src.includes('node_modules') });
  // Only the @sas scope comes from the local registry; everything else from the machine's npm registry.
  writeFileSync(join(shop, '.npmrc'), `${registry.scopeLine}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], shop, 300_000, applicationEnv());
  progress(`npm installed the example in ${Date.now() - started} ms`);

  stack = await TestStack.start({ name: 'example-app' });
  warehouseUrl = await startRemote('warehouse', 'remotes/warehouse.js');
  // Answers held back 1 s, so a crash of the agent lands between a charge and its answer even when a
  // loaded machine takes a few hundred ms from seeing the charge pending to the kill (300 ms was not enough).
  providerUrl = await startRemote('payment-provider', 'remotes/payment-provider.js', { PAYMENT_LIMIT: '100000', RESPONSE_DELAY_MS: '1000' });
  const WORKFLOWS_FILE = join(shop, 'workflows.json');
  system = await LocalSystem.start({
    root: WORKSPACE_ROOT,
    env: stack.env,
    topology: { agents: { warehouse: 1 }, schedulers: 1, supervisors: 1, submission: 1 },
    roleEnv: {
      submission: { WORKFLOWS_FILE },
      scheduler: { WORKFLOWS_FILE, POLL_INTERVAL_MS: '300' },
      supervisor: { WORKFLOWS_FILE, SWEEP_INTERVAL_MS: '200' },
      agent: { AGENT_MAPPING_FILE: join(shop, 'warehouse-mapping.json'), WAREHOUSE_URL: warehouseUrl },
    },
    logDir: stack.logDir,
  });
  paymentAgent = shopProcess('payment-agent', ['payment-agent.js'], { PAYMENT_URL: providerUrl, INSTANCE_ID: 'payment-agent-1' });
  await paymentAgent.start();
  await paymentAgent.waitForLine((l) => l.json?.['msg'] === 'agent ready', 30_000, 'payment agent ready');
  progress(`system, remotes and payment agent up after ${Date.now() - started} ms (logs in ${stack.logDir})`);
}, 600_000);

afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  await system?.stop();
  await stack?.stop();
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('the shop example, installed from a registry outside the workspace', () => {
  it('is no workspace member, and asks for the versions of our packages that were published', () => {
    expect(readFileSync(join(WORKSPACE_ROOT, 'pnpm-workspace.yaml'), 'utf8')).not.toMatch(/examples/);
    const wanted = (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'examples/shop/package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
    for (const dir of ['packages/agent', 'packages/client']) {
      const { name, version } = JSON.parse(readFileSync(join(WORKSPACE_ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string };
      expect([name, wanted[name]]).toEqual([name, version]);
    }
  });

  it('resolves @sas/agent and @sas/client from its own node_modules', () => {
    const resolved = run(process.execPath, ['-p', "JSON.stringify([require.resolve('@sas/agent'), require.resolve('@sas/client')])"], shop).stdout;
    for (const path of JSON.parse(resolved) as string[]) {
      expect(path.startsWith(join(shop, 'node_modules', '@sas'))).toBe(true);
      expect(path.startsWith(WORKSPACE_ROOT + '/packages')).toBe(false);
    }
  });

  it('processes orders, the warehouse getting the charge id the payment step returned', async () => {
    const summary = await submit('ok', 3, {});
    expect(Object.values(summary)).toEqual(['Processed', 'Processed', 'Processed']);
    const charges = (await effects<PaymentEffect>(providerUrl)).filter((e) => e.effect === 'charge' && e.orderId.startsWith('ok-'));
    const reserves = (await effects<WarehouseEffect>(warehouseUrl)).filter((e) => e.effect === 'reserve' && e.orderId.startsWith('ok-'));
    expect(charges).toHaveLength(3);
    for (const order of Object.keys(summary)) {
      const charge = charges.find((c) => c.orderId === order);
      expect(charge?.chargeId).toMatch(/^ch_\d+$/);
      expect(reserves.find((r) => r.orderId === order)?.received).toEqual({ sku: 'kettle', quantity: 1, paidWith: charge?.chargeId });
    }
  }, 60_000);

  it('compensates an order the warehouse refuses, refunding the charge by the id the charge step returned', async () => {
    const summary = await submit('refused', 1, { SKU: 'unicorn' });
    expect(summary).toEqual({ 'refused-1': 'Compensated' });
    const payments = (await effects<PaymentEffect>(providerUrl)).filter((e) => e.orderId === 'refused-1');
    const charge = payments.find((e) => e.effect === 'charge');
    expect(payments.map((e) => e.effect)).toEqual(['charge', 'refund']);
    // The refund handler got the charge's result in call.compensates.result and sent its id.
    expect(payments[1]?.received?.['chargeId']).toBe(charge?.chargeId);
    expect((await effects<WarehouseEffect>(warehouseUrl)).filter((e) => e.orderId === 'refused-1')).toEqual([]);
  }, 60_000);

  it('refuses an order over the provider limit without charging it', async () => {
    const summary = await submit('over-limit', 1, { AMOUNT: '500000' });
    expect(summary).toEqual({ 'over-limit-1': 'Compensated' });
    expect((await effects<PaymentEffect>(providerUrl)).filter((e) => e.orderId === 'over-limit-1')).toEqual([]);
  }, 60_000);

  describe('when the payment agent is killed with SIGKILL in the middle of a run', () => {
    it('settles every order and applies no effect twice at either remote', async () => {
      const count = 20;
      // A steady stream of orders (one every 150 ms, each charge answered 1 s late: RESPONSE_DELAY_MS), so a charge is
      // pending at almost any moment of the run, however slow a loaded machine makes the steps.
      const summary = await submit('crash', count, { SPACING_MS: '150' }, async (submitter) => {
        // Kill once a few orders are done and a charge has been applied but not yet answered.
        await stack.waitFor(
          async () => {
            const processed = statusLines(submitter).filter((l) => l['status'] === 'Processed').length;
            const pending = (await effects<PaymentEffect>(providerUrl)).filter((e) => e.orderId.startsWith('crash-') && e.effect === 'charge' && !e.answered);
            if (processed >= 3 && pending.length > 0) return true;
            // Thrown rather than returned, so a timeout names what was seen last.
            throw new Error(`not yet: ${processed} Processed, ${pending.length} charges unanswered`);
          },
          { timeoutMs: 30_000, intervalMs: 20, description: '3 crash orders Processed and a charge unanswered' },
        );
        const processed = statusLines(submitter).filter((l) => l['status'] === 'Processed').length;
        await paymentAgent.kill('SIGKILL');
        progress(`killed the payment agent (SIGKILL) with ${processed}/${count} orders processed; restarting it`);
        await paymentAgent.restart();
        await paymentAgent.waitForLine((l) => l.json?.['msg'] === 'agent ready', 30_000, 'restarted payment agent ready');
      });
      expect(Object.keys(summary)).toHaveLength(count);
      expect(Object.values(summary).filter((s) => !FINAL.includes(s))).toEqual([]);

      const perOrder = (list: { orderId: string; effect: string }[], effect: string): Record<string, number> => {
        const counts: Record<string, number> = {};
        for (const e of list) if (e.effect === effect && e.orderId.startsWith('crash-')) counts[e.orderId] = (counts[e.orderId] ?? 0) + 1;
        return counts;
      };
      const { effects: payments, repeats = [], arrivals = [] } = await effectsBody<PaymentEffect>(providerUrl);
      const stock = await effects<WarehouseEffect>(warehouseUrl);
      const twice = (counts: Record<string, number>): string[] => Object.entries(counts).filter(([, n]) => n > 1).map(([o, n]) => `${o}×${n}`);
      // No order was charged or reserved twice...
      expect({ charges: twice(perOrder(payments, 'charge')), reservations: twice(perOrder(stock, 'reserve')) }).toEqual({ charges: [], reservations: [] });
      // ...although the crash did make the system send charges again (redeliveries or recoveries).
      const crashCharges = new Set(payments.filter((e) => e.effect === 'charge' && e.orderId.startsWith('crash-')).map((e) => e.key));
      expect(repeats.filter((k) => crashCharges.has(k)).length).toBeGreaterThan(0);
      // Every processed order was charged and reserved exactly once.
      const processed = Object.entries(summary).filter(([, s]) => s === 'Processed').map(([o]) => o);
      progress(`crash run: ${processed.length}/${count} Processed, ${payments.filter((e) => e.orderId.startsWith('crash-')).length} payment effects, ${repeats.length} keys sent again`);
      for (const order of processed) {
        expect([perOrder(payments, 'charge')[order], perOrder(stock, 'reserve')[order], perOrder(payments, 'refund')[order]]).toEqual([1, 1, undefined]);
      }
      // Every charge of a compensated order was refunded (by its charge id), and its stock released.
      const compensated = Object.entries(summary).filter(([, s]) => s === 'Compensated').map(([o]) => o);
      const refundedIds = new Set(payments.filter((e) => e.effect === 'refund').map((e) => e.chargeId));
      const unrefunded = payments.filter((e) => e.effect === 'charge' && compensated.includes(e.orderId) && !refundedIds.has(e.chargeId));
      expect(unrefunded.map((e) => `${e.orderId}: ${e.chargeId} (key ${e.key}) never refunded`)).toEqual([]);
      const released = stock.filter((e) => e.effect === 'release').map((e) => e.orderId);
      expect(stock.filter((e) => e.effect === 'reserve' && compensated.includes(e.orderId) && !released.includes(e.orderId)).map((e) => e.orderId)).toEqual([]);
      // From the calls as they arrived: no refund ahead of its charge's answer, no charge after its refund.
      // Every arrival, not only the crash orders': a refund that came before any charge names no order.
      expect(arrivals.filter((a) => a.operation === 'charge' && a.orderId?.startsWith('crash-')).length).toBeGreaterThanOrEqual(count);
      expect(undosBeforeForwardAnswered(asLedgerArrivals(arrivals))).toEqual([]);
      expect(forwardCallsAfterUndo(asLedgerArrivals(arrivals))).toEqual([]);
    }, 90_000);
  });
});
