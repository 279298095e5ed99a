import { AgentHost, CircuitBreakers, TransientError, sleep, type AgentDefinition } from '@sas/agent';
import { Bus } from '@sas/bus';
import { AgentReply, QueueNames, type AgentRequest } from '@sas/contracts';
import { createLogger, systemClock } from '@sas/runtime';
import { TestStack, uniqueName, waitFor } from '@sas/testkit';

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({ name: 'agent-host' });
});
afterAll(() => stack?.stop());

const once = { maxAttempts: 1, initialBackoffMs: 0, maxBackoffMs: 0, multiplier: 1, jitter: 0 };

function requestFor(agent: string, operation: string, replyTo: string, n: number): AgentRequest {
  return {
    schemaVersion: 1,
    processId: `proc-${agent}-${n}`,
    orderId: `order-${agent}-${n}`,
    step: `${agent}-step`,
    stepIndex: 0,
    mode: 'forward',
    agent,
    operation,
    attempt: 1,
    idempotencyKey: `order-${agent}-${n}/${agent}-step/forward`,
    completeBy: Date.now() + 30_000,
    payload: { n },
    retry: once,
    replyTo,
  };
}

describe('AgentHost with two agents in one process', () => {
  it('consumes each agent’s own queue and keeps a breaker per agent: a failing remote parks only its own steps', async () => {
    const logger = createLogger({ service: 'agent-host-test', instanceId: 'agent-host-test-1', level: 'silent' });
    const bus = new Bus({ redisUrl: stack.env.REDIS_URL ?? '', prefix: uniqueName('agents'), instanceId: 'agent-host-test-1', logger, clock: systemClock });
    const breakers = new CircuitBreakers({
      errorThresholdPercentage: 50,
      volumeThreshold: 1,
      resetTimeoutMs: 60_000,
      rollingWindowMs: 60_000,
      clock: systemClock,
      logger,
    });
    const payment: AgentDefinition = {
      name: 'payment',
      operations: { charge: () => Promise.reject(new TransientError('bank answered 503')) },
    };
    const inventory: AgentDefinition = {
      name: 'inventory',
      operations: { reserve: (call) => Promise.resolve({ reservationId: `r-${call.orderId}` }) },
    };
    const host = new AgentHost({
      agents: [payment, inventory],
      instanceId: 'agent-host-test-1',
      bus,
      breakers,
      clock: systemClock,
      sleep,
      random: () => 0,
      logger,
      defaults: { retry: once },
      concurrency: 1,
    });
    const replyTo = uniqueName('replies');
    const replies: AgentReply[] = [];
    bus.consume({ queue: replyTo, schema: AgentReply, handle: async (r) => void replies.push(r) });
    try {
      host.start();
      const replyOf = (processId: string): Promise<AgentReply> =>
        waitFor(() => replies.find((r) => r.processId === processId), { timeoutMs: 15_000, description: `the reply for ${processId}` });

      await bus.send(QueueNames.agentRequests('payment'), requestFor('payment', 'charge', replyTo, 1));
      const first = await replyOf('proc-payment-1');
      await bus.send(QueueNames.agentRequests('payment'), requestFor('payment', 'charge', replyTo, 2));
      await bus.send(QueueNames.agentRequests('inventory'), requestFor('inventory', 'reserve', replyTo, 1));
      const second = await replyOf('proc-payment-2');
      const reserved = await replyOf('proc-inventory-1');

      // The one transient fault opened payment's breaker: its steps are parked ...
      expect(first).toMatchObject({ agent: 'payment', outcome: 'parked', reason: 'circuit open for payment' });
      expect(second).toMatchObject({ agent: 'payment', outcome: 'parked' });
      // ... while inventory, on its own queue with its own breaker, goes on.
      expect(reserved).toMatchObject({ agent: 'inventory', outcome: 'ok', result: { reservationId: 'r-order-inventory-1' } });
      expect(breakers.state('payment').state).toBe('open');
      expect(breakers.state('inventory').state).toBe('closed');
      expect(host.isRunning()).toBe(true);
      expect(host.stats()).toMatchObject({ payment_requests_parked: 2, inventory_requests_replied_ok: 1, payment_breaker_open: 1, inventory_breaker_open: 0 });
    } finally {
      await host.close();
      breakers.close();
      await bus.close();
    }
  });

  it('refuses two agents of the same name', () => {
    const logger = createLogger({ service: 'agent-host-test', instanceId: 'x', level: 'silent' });
    const agent: AgentDefinition = { name: 'payment', operations: {} };
    expect(
      () =>
        new AgentHost({
          agents: [agent, agent],
          instanceId: 'x',
          bus: { send: () => Promise.resolve(), consume: () => { throw new Error('unused'); } },
          breakers: new CircuitBreakers({ errorThresholdPercentage: 50, volumeThreshold: 1, resetTimeoutMs: 1000, rollingWindowMs: 1000, clock: systemClock, logger }),
          clock: systemClock,
          sleep,
          random: () => 0,
          logger,
          defaults: { retry: once },
        }),
    ).toThrow("agent names must be unique in one process; 'payment' appears twice");
  });
});
