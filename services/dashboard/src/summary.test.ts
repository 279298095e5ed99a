import type { BreakerStateDocument } from '@sas/contracts';
import { shapeSummary } from './summary';

const breaker = (agent: string, instanceId: string, state: BreakerStateDocument['state']): BreakerStateDocument => ({
  _id: `${agent}/${instanceId}`,
  agent,
  instanceId,
  state,
  retryAt: state === 'open' ? new Date('2025-01-01T00:00:05.000Z') : null,
  updatedAt: new Date('2025-01-01T00:00:00.000Z'),
  deleteTime: new Date('2025-01-02T00:00:00.000Z'),
});

describe('shaping the summary', () => {
  const at = new Date('2025-01-01T12:00:00.000Z');
  const base = { byState: {}, byWorkflow: {}, queues: {}, deadLetters: 0, breakers: [], at };

  it('lists every state in lifecycle order, zero when no process is in it', () => {
    const summary = shapeSummary({ ...base, byState: { Error: 2, Processed: 5 } });
    expect(summary.processes.byState).toEqual({ Pending: 0, Processing: 0, Processed: 5, Error: 2, Compensating: 0, Compensated: 0, Canceled: 0 });
    expect(Object.keys(summary.processes.byState)[0]).toBe('Pending');
    expect(summary.processes.total).toBe(7);
  });

  it('counts a state it does not know in the total without inventing it', () => {
    const summary = shapeSummary({ ...base, byState: { Processed: 1, Archived: 3 } });
    expect(summary.processes.total).toBe(4);
    expect(summary.processes.byState).not.toHaveProperty('Archived');
  });

  it('sorts workflows by name and breakers by agent then instance, with times as ISO text', () => {
    const summary = shapeSummary({
      ...base,
      byWorkflow: { 'order-fulfilment': 3, 'fast-manual': 1 },
      breakers: [breaker('shipping', 'a', 'closed'), breaker('payment', 'b', 'open'), breaker('payment', 'a', 'halfOpen')],
    });
    expect(Object.keys(summary.processes.byWorkflow)).toEqual(['fast-manual', 'order-fulfilment']);
    expect(summary.breakers.map((b) => `${b.agent}/${b.instanceId}/${b.state}`)).toEqual(['payment/a/halfOpen', 'payment/b/open', 'shipping/a/closed']);
    expect(summary.breakers[1]).toEqual({ agent: 'payment', instanceId: 'b', state: 'open', retryAt: '2025-01-01T00:00:05.000Z', updatedAt: '2025-01-01T00:00:00.000Z' });
  });

  it('passes queue counts and dead letters through and stamps the time read', () => {
    const queues = { alerts: { waiting: 1, active: 0, delayed: 0, failed: 2 } };
    const summary = shapeSummary({ ...base, queues, deadLetters: 4 });
    expect(summary).toMatchObject({ queues, deadLetters: 4, at: '2025-01-01T12:00:00.000Z' });
  });
});
