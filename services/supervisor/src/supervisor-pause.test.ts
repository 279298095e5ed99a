import { HELD_UNTIL_RESUMED } from '@sas/workflow';
import { COMPLETE_BY_MS, SupervisorHarness } from './test-support/supervisor-harness';

describe('Supervisor recovering an expired step of a paused agent', () => {
  let h: SupervisorHarness;
  beforeEach(() => {
    h = new SupervisorHarness();
  });
  afterEach(() => h.closeAll());

  it('holds the step for the agent instead of releasing it, and counts no failure', async () => {
    const held = await h.held();
    h.pausedAgents.add('inventory');
    h.clock.t += COMPLETE_BY_MS;
    h.outbox.clear();
    const report = await h.supervisor('supervisor-a').sweep();
    expect(report).toMatchObject({ leader: true, recovered: 1 });
    const doc = await h.doc();
    expect(doc).toMatchObject({ state: 'Pending', heldFor: 'inventory', failureCount: 0, completeBy: null, attempt: held.attempt + 1 });
    expect(doc.notBefore).toEqual(HELD_UNTIL_RESUMED);
    // No wake-up and no dispatch: nothing reaches a scheduler until the agent is resumed.
    expect(h.outbox.sent.filter((s) => s.queue !== 'app.status')).toEqual([]);
    // Held work has no complete-by: later sweeps find nothing, however long the pause lasts.
    h.clock.t += 60 * 60_000;
    expect(await h.supervisor('supervisor-a').sweep()).toMatchObject({ recovered: 0 });
    expect((await h.doc()).failureCount).toBe(0);
  });

  it('still counts a failure for an agent that is not paused', async () => {
    await h.held();
    h.pausedAgents.add('payment');
    h.clock.t += COMPLETE_BY_MS;
    await h.supervisor('supervisor-a').sweep();
    expect(await h.doc()).toMatchObject({ state: 'Pending', failureCount: 1 });
    expect((await h.doc()).heldFor ?? null).toBeNull();
  });
});
