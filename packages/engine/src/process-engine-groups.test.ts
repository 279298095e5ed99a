import { orderFulfilmentV1, type WorkflowDefinition } from '@sas/workflow';
import { agentRequests } from './test-support/agent-requests';
import { EngineHarness, T0 } from './test-support/engine-harness';
import { okReply } from './test-support/ok-reply';

const [reserve, charge, ship] = orderFulfilmentV1.steps;

/** Reserve, then charge and ship at the same time. */
const parallelFulfilment: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'parallel-fulfilment',
  steps: [reserve!, { name: 'charge-and-ship', parallel: [charge!, ship!] }],
};

/** p-1 of the parallel workflow, claimed, its reserve step answered: both members sent. */
async function groupStarted(h: EngineHarness): Promise<void> {
  await h.submit(parallelFulfilment);
  const engine = h.engine();
  await engine.apply('p-1', { type: 'claim' });
  const [request] = agentRequests(h.outbox);
  await engine.apply('p-1', { type: 'reply', reply: okReply(request!, h.clock.t) });
}

describe('a parallel group through the engine', () => {
  it('releases every member whose dispatch could not be sent, each on its own, and sends them again', async () => {
    const h = new EngineHarness({}, [parallelFulfilment]);
    await h.submit(parallelFulfilment);
    const engine = h.engine();
    await engine.apply('p-1', { type: 'claim' });
    const [request] = agentRequests(h.outbox);
    h.outbox.failWith = new Error('redis is down');
    await engine.apply('p-1', { type: 'reply', reply: okReply(request!, h.clock.t) });
    const released = await h.doc();
    expect(released).toMatchObject({ state: 'Pending', failureCount: 0, notBefore: new Date(T0 + 1000) });
    expect(released.steps.slice(1).map((s) => [s.name, s.state, s.completeBy, s.notBefore])).toEqual([
      ['charge-payment', 'Running', null, new Date(T0 + 1000)],
      ['create-shipment', 'Running', null, new Date(T0 + 1000)],
    ]);
    h.outbox.failWith = undefined;
    h.clock.t = T0 + 1000;
    await engine.apply('p-1', { type: 'claim' });
    expect(agentRequests(h.outbox).map((r) => r.step)).toEqual(['reserve-inventory', 'charge-payment', 'create-shipment']);
  });

  it("applies a member's reply that arrives while the process is Pending for its sibling's retry", async () => {
    const h = new EngineHarness({}, [parallelFulfilment]);
    await groupStarted(h);
    const [, chargeRequest, shipRequest] = agentRequests(h.outbox);
    const engine = h.engine();
    await engine.apply('p-1', { type: 'reply', reply: { ...okReply(chargeRequest!, h.clock.t), outcome: 'error', errorKind: 'transient', message: 'gateway timeout' } });
    expect((await h.doc()).state).toBe('Pending');
    const outcome = await h.engine('scheduler-2').apply('p-1', { type: 'reply', reply: okReply(shipRequest!, h.clock.t) });
    expect(outcome.kind).toBe('applied');
    expect((await h.doc()).steps[2]?.state).toBe('Completed');
  });
});
