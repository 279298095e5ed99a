import { join } from 'node:path';
import type { ProcessEventEntry } from '@sas/contracts';
import { ServiceProcess, findWorkspaceRoot } from '@sas/stack';
import { repeatedDispatches, repeatedEffects } from '../support/ledger-checks';
import { plainArrivals, withPlainRemote } from '../support/remote-arrivals';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/**
 * `sas up`'s core process (submission, a scheduler and a supervisor in one Node process) is one
 * failure domain: kill -9 takes the three roles down at once. The other processes of those roles
 * must then recover its work exactly as they recover a single killed scheduler and supervisor.
 */
describe('when the shared core process is killed (kill -9)', () => {
  let fx: SystemFixture;
  let core: ServiceProcess;

  beforeAll(async () => {
    const roleEnv = withPlainRemote(fastRoleEnv());
    fx = await SystemFixture.start('core-process-crash', { schedulers: 1, supervisors: 1, submission: 1 }, roleEnv);
    core = new ServiceProcess({
      name: 'core-1',
      script: join(findWorkspaceRoot(), 'tools', 'cli', 'dist', 'up', 'core-main.js'),
      env: { ...fx.stack.env, ...roleEnv['submission'], ...roleEnv['scheduler'], ...roleEnv['supervisor'], INSTANCE_ID: 'core-1' },
      logFile: join(fx.stack.logDir, 'core-1.log'),
    });
    await core.start();
    await core.waitForLine((l) => l.json?.['msg'] === 'core ready', 30_000, 'core-1 to log core ready');
  });
  afterAll(async () => {
    await core?.stop();
    await fx?.stop();
  });

  it('hosts the three roles, each under an instance id of its own', async () => {
    // Each role logs through its own logger, whose lines may reach stdout after the core's ready line.
    const readyOf = async (msg: string): Promise<unknown> => (await core.waitForLine((l) => l.json?.['msg'] === msg, 10_000, msg)).json?.['instance'];
    expect([await readyOf('submission ready'), await readyOf('scheduler ready'), await readyOf('supervisor ready')]).toEqual(['submission-core-1', 'scheduler-core-1', 'supervisor-core-1']);
  });

  it('finishes every order the killed process held, with one effect per step, through the other scheduler and supervisor', async () => {
    await fx.setFaults('inventory', { latencyMs: 200 });
    const ids = Array.from({ length: 30 }, (_, i) => `core-crash-${i}`);
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    // Held at the first step, whose remote answers after 200 ms: the core cannot finish these before it dies.
    const held = await fx.stack.waitFor(
      async () => {
        const docs = await fx.processes({ orderId: { $in: ids }, state: 'Processing', lockedBy: 'scheduler-core-1', currentStep: 0 });
        return docs.length > 0 ? docs : null;
      },
      { timeoutMs: 20_000, description: 'the core process\'s scheduler to hold a process at its first step' },
    );
    await core.kill('SIGKILL');
    await fx.setFaults('inventory', {});
    await fx.waitForStates(ids, ['Processed'], 60_000);

    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(repeatedDispatches(await plainArrivals(fx, ids))).toEqual([]);
    for (const id of ids) {
      expect(ledger.filter((e) => e.orderId === id).map((e) => e.operation).sort()).toEqual(['charge', 'create', 'reserve']);
    }
    // The survivors finished what the core process held: those orders' histories end under their names.
    const heldIds = held.map((d) => d._id);
    const finished = await fx.db.collection<ProcessEventEntry>('process_events').find({ processId: { $in: heldIds }, to: 'Processed' }).toArray();
    expect(finished.map((e) => ({ processId: e.processId, bySurvivor: ['scheduler-1', 'supervisor-1'].includes(e.who) })).sort((a, b) => a.processId.localeCompare(b.processId))).toEqual(
      [...heldIds].sort().map((processId) => ({ processId, bySurvivor: true })),
    );
  });

  it('comes back after the crash, and on SIGTERM closes its roles in the reverse of their start order and exits 0', async () => {
    await core.restart();
    await core.waitForLine((l) => l.json?.['msg'] === 'core ready' && l.run === 2, 30_000, 'the restarted core-1 to log core ready');
    await core.stop(20_000);
    expect(core.exitCode).toBe(0);
    const closed = core.lines.filter((l) => l.run === 2 && l.json?.['service'] === 'core' && l.json['msg'] === 'closed').map((l) => l.json?.['component']);
    expect(closed).toEqual(['submission', 'scheduler', 'supervisor']);
  });
});
