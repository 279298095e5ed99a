import type { AgentRegistration } from '@sas/contracts';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, defineWorkflow } from '@sas/workflow';
import { pino } from 'pino';
import { checkAgentCoverage } from './agent-coverage-check';

const T0 = Date.UTC(2030, 0, 1);

const trip = defineWorkflow({
  name: 'trip',
  version: 1,
  steps: [
    { name: 'book-flight', agent: 'flights', operation: 'book', compensation: 'cancel', completeByMs: 5000, retry: {} },
    { name: 'charge-card', agent: 'payment', operation: 'charge', compensation: 'refnd', completeByMs: 5000, retry: {} },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 60_000,
});

function registration(agent: string, operations: string[]): AgentRegistration {
  return { _id: `${agent}/i-1`, agent, instanceId: 'i-1', operations, compensations: [], servesOtherOperations: false, version: null, startedAt: new Date(T0), lastSeen: new Date(T0), deleteTime: new Date(T0 + 30_000) };
}

describe('checkAgentCoverage', () => {
  it('warns and sends one alert naming each operation no live agent serves, checking the deployment’s own workflows', async () => {
    const outbox = new RecordingOutbox();
    const live = [registration('flights', ['book', 'cancel']), registration('payment', ['charge', 'refund'])];
    const lines = await checkAgentCoverage({
      registry: new WorkflowRegistry([...builtInWorkflows, trip]),
      registrations: { listLive: (now) => Promise.resolve(now.getTime() === T0 ? live : []) },
      outbox,
      clock: new ManualClock(T0),
      logger: pino({ level: 'silent' }),
    });
    const gap = "trip@1 step charge-card: compensation 'refnd' — agent 'payment' (1 live instance(s)) serves charge, refund, not 'refnd'";
    expect(lines).toEqual([gap]);
    expect(outbox.sent).toEqual([{ queue: 'alerts', message: { schemaVersion: 1, kind: 'OperationUnserved', reason: `no live agent serves: ${gap}`, at: T0 }, options: undefined }]);
  });

  it('sends nothing when every operation is served, and never throws when the store fails', async () => {
    const outbox = new RecordingOutbox();
    const deps = { registry: new WorkflowRegistry([trip]), outbox, clock: new ManualClock(T0), logger: pino({ level: 'silent' }) };
    const served = [registration('flights', ['book', 'cancel']), { ...registration('payment', []), servesOtherOperations: true }];
    await expect(checkAgentCoverage({ ...deps, registrations: { listLive: () => Promise.resolve(served) } })).resolves.toEqual([]);
    await expect(checkAgentCoverage({ ...deps, registrations: { listLive: () => Promise.reject(new Error('mongo down')) } })).resolves.toEqual([]);
    expect(outbox.sent).toEqual([]);
  });
});
