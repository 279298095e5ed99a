import { QueueNames } from '@sas/contracts';
import { orderFulfilmentV1, type WorkflowDefinition } from '@sas/workflow';
import { SupervisorHarness, T0 } from './test-support/supervisor-harness';

const [reserve, charge, ship] = orderFulfilmentV1.steps;

/** Charge (2 s) and reserve (5 s) at the same time, then ship. */
const parallelFirst: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'parallel-first',
  steps: [{ name: 'charge-and-reserve', parallel: [{ ...charge!, completeByMs: 2000 }, reserve!] }, ship!],
};

describe('the supervisor and a parallel group', () => {
  let h: SupervisorHarness;
  beforeEach(() => {
    h = new SupervisorHarness([parallelFirst]);
  });
  afterEach(() => h.closeAll());

  it('sweeps the process at its earliest member complete-by and recovers that member alone', async () => {
    const held = await h.held(parallelFirst);
    expect(held).toMatchObject({ state: 'Processing', completeBy: new Date(T0 + 2000) });
    const supervisor = h.supervisor('supervisor-a');
    h.clock.t = T0 + 2000;
    expect(await supervisor.sweep()).toMatchObject({ recovered: 1 });
    const after = await h.doc();
    expect(after).toMatchObject({ state: 'Pending', failureCount: 1, reason: 'charge-payment: complete-by passed' });
    expect(after.steps.map((s) => [s.name, s.state, s.failureCount, s.completeBy])).toEqual([
      ['charge-payment', 'Running', 1, null],
      ['reserve-inventory', 'Running', 0, new Date(T0 + 5000)],
      ['create-shipment', 'NotStarted', undefined, undefined],
    ]);
    expect(h.outbox.messagesTo(QueueNames.alerts)).toEqual([]);
    expect(supervisor.metrics()).toMatchObject({ recovered: 1 });

    // The claim re-sends the recovered member; the sibling's own complete-by is swept later.
    h.clock.t = T0 + 3500;
    expect((await h.claim()).completeBy).toEqual(new Date(T0 + 5000));
    h.clock.t = T0 + 5000;
    expect(await supervisor.sweep()).toMatchObject({ recovered: 1 });
    expect((await h.doc()).steps.map((s) => s.failureCount)).toEqual([1, 1, undefined]);
  });
});
