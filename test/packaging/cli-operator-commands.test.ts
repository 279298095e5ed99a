import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SasClient } from '@sas/client';
import type { ProcessDocument } from '@sas/contracts';
import { TestStack } from '@sas/testkit';
import { WORKSPACE_ROOT } from '../support/pack-workspace';

/**
 * The operator commands of the built `sas` as real processes against a real stack (private Redis,
 * MongoDB as resolved, a submission service and a scheduler): a process named by orderId or by
 * process id, an id that is both refused as ambiguous, and output into a closed pipe ending
 * quietly. No agent runs, so the orders stay Processing at their first step until canceled.
 */

const MAIN = join(WORKSPACE_ROOT, 'tools', 'cli', 'dist', 'main.js');

describe('the sas operator commands against a running system', () => {
  let stack: TestStack;
  let first: ProcessDocument;
  let clashing: ProcessDocument;

  const sas = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, ...stack.env }, encoding: 'utf8', timeout: 60_000 });

  /** `sas ARGS | reader` in bash with pipefail, so the status is sas's own. */
  const piped = (args: string, reader: string): { status: number | null; stdout: string; stderr: string } =>
    spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${MAIN}" ${args} | ${reader}`], {
      env: { ...process.env, ...stack.env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  const processOf = async (orderId: string): Promise<ProcessDocument> => {
    const db = (await stack.mongoClient()).db();
    return stack.waitFor(() => db.collection<ProcessDocument>('processes').findOne({ orderId, state: 'Processing' }), {
      timeoutMs: 30_000,
      description: `order ${orderId} Processing`,
    });
  };

  beforeAll(async () => {
    stack = await TestStack.start({ name: 'cli-operator-commands' });
    await stack.spawn('submission');
    await stack.spawn('scheduler');
    const client = new SasClient({ redisUrl: stack.env['REDIS_URL'] as string, prefix: stack.queuePrefix });
    try {
      await client.submit({ orderId: 'cli-first', workflow: 'order-fulfilment', payload: { sku: 'kettle', amount: 30 } });
      first = await processOf('cli-first');
      // An order whose orderId is the first process's id: that text names two processes.
      await client.submit({ orderId: first._id, workflow: 'order-fulfilment', payload: { sku: 'mug', amount: 5 } });
      clashing = await processOf(first._id);
    } finally {
      await client.close();
    }
  });
  afterAll(() => stack?.stop());

  it('shows a process named by its orderId and says so on the first line', () => {
    const r = sas('status', 'cli-first');
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout.split('\n')[0]).toBe(`matched orderId cli-first → process ${first._id}`);
    expect(r.stdout).toContain(`state Processing`);
  });

  it('refuses a text that is one process id and another orderId, and takes it when told which', () => {
    const r = sas('status', first._id);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`'${first._id}' is ambiguous: it is the process id of ${first._id} (order cli-first) and the orderId of process ${clashing._id}`);
    expect(sas('status', '--process-id', first._id).stdout.split('\n')[0]).toBe(`matched process id ${first._id} (order cli-first)`);
    expect(sas('status', '--order-id', first._id).stdout.split('\n')[0]).toBe(`matched orderId ${first._id} → process ${clashing._id}`);
  });

  it('says clearly when neither a process id nor an orderId matches', () => {
    const r = sas('cancel', 'no-such-order');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(`refused: no process no-such-order: no process has the process id or orderId 'no-such-order' in database ${stack.dbName}; check it (sas processes lists them), or it was removed after its retention\n`);
  });

  it('counts the processes by state, workflow and step', () => {
    const r = sas('processes', '--workflow', 'order-fulfilment', '--state', 'Processing');
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      '2 processes (state Processing · workflow order-fulfilment)',
      '  by state:    Processing 2',
      '  by workflow: order-fulfilment 2',
      '  by step:     reserve-inventory 2   (the current step; for Error, the step that failed)',
    ]);
  });

  it('ends quietly with status 0 when the reader of its output has gone', () => {
    // `true` exits before sas writes anything: every write meets a closed pipe.
    for (const args of ['status cli-first', 'processes', '--help', 'processes --help']) {
      expect([args, piped(args, 'true')]).toEqual([args, expect.objectContaining({ status: 0, stderr: '' })]);
    }
    const head = piped('status cli-first', 'head -1');
    expect(head).toMatchObject({ status: 0, stderr: '', stdout: `matched orderId cli-first → process ${first._id}\n` });
  });

  it('resubmits and cancels a process named by its orderId, saying which process it acted on', () => {
    const refused = sas('resubmit', 'cli-first', '--by', 'test-operator');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(new RegExp(`^matched orderId cli-first → process ${first._id}\nrefused: `));
    const canceled = sas('cancel', 'cli-first', '--by', 'test-operator', '--reason', 'customer withdrew');
    expect({ status: canceled.status, stderr: canceled.stderr }).toEqual({ status: 0, stderr: '' });
    expect(canceled.stdout).toMatch(new RegExp(`^matched orderId cli-first → process ${first._id}\ndone: canceled by test-operator`));
  });
});
