import type { AgentRegistration } from '@sas/contracts';
import { defineWorkflow } from './define-workflow';
import { builtInWorkflows } from './order-fulfilment';
import { describeUnserved, unservedOperations } from './unserved-operations';
import { WorkflowRegistry } from './workflow-registry';
import { workflowsToCheck } from './workflows-to-check';

const trip = defineWorkflow({
  name: 'trip',
  version: 2,
  steps: [
    { name: 'book-flight', agent: 'flights', operation: 'book', compensation: 'cancel', completeByMs: 5000, retry: {} },
    { name: 'charge-card', agent: 'payment', operation: 'charge', compensation: 'refnd', completeByMs: 5000, retry: {} },
    { name: 'notify', agent: 'mailer', operation: 'send', compensation: null, completeByMs: 5000, retry: {} },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 60_000,
});

function live(agent: string, instanceId: string, operations: string[], catchAll = false): AgentRegistration {
  const at = new Date(0);
  return { _id: `${agent}/${instanceId}`, agent, instanceId, operations, compensations: [], servesOtherOperations: catchAll, version: null, startedAt: at, lastSeen: at, deleteTime: at };
}

describe('unservedOperations', () => {
  it('names each operation and compensation no live instance serves: a typo, and an agent with no instance', () => {
    const gaps = unservedOperations([trip], [live('flights', 'a', ['book']), live('flights', 'b', ['book', 'cancel']), live('payment', 'a', ['charge', 'refund'])]);
    expect(gaps.map(describeUnserved)).toEqual([
      "trip@2 step charge-card: compensation 'refnd' — agent 'payment' (1 live instance(s)) serves charge, refund, not 'refnd'",
      "trip@2 step notify: operation 'send' — no live instance of agent 'mailer' is registered",
    ]);
  });

  it('counts an instance with a catch-all handler as serving every name', () => {
    const gaps = unservedOperations([trip], [live('flights', 'a', ['book', 'cancel']), live('payment', 'a', [], true), live('mailer', 'a', ['send'])]);
    expect(gaps).toEqual([]);
  });
});

describe('workflowsToCheck', () => {
  it('checks a deployment’s own workflows when it has any, else the built-in ones', () => {
    expect(workflowsToCheck(new WorkflowRegistry([...builtInWorkflows, trip]))).toEqual([trip]);
    expect(workflowsToCheck(new WorkflowRegistry(builtInWorkflows)).map((w) => w.name)).toEqual(builtInWorkflows.map((w) => w.name));
  });
});
