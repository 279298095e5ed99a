import type { Server } from 'node:http';
import { AgentWorker, sleep, type Breakers } from '@sas/agent';
import type { AgentReply, AgentRequest } from '@sas/contracts';
import { createLogger, systemClock, type Tracing } from '@sas/runtime';
import { RecordingTracing } from '@sas/testkit';
import { httpAgent } from './http-agent';
import { remoteSimMapping } from './remote-sim-mapping';
import { json, startRemote } from './test-support/local-remote';

// The HTTP agent as it runs: an AgentWorker around the remote-sim mapping, against a local server
// that records the headers it receives.

const logger = createLogger({ service: 'http-agent-trace-test', instanceId: 'test-1', level: 'silent' });
const DISPATCH = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const neverOpen: Breakers = {
  call: (_service, action) => action(),
  blockedFor: () => undefined,
  state: () => ({ state: 'closed', retryAt: null }),
  onStateChange: () => () => undefined,
};

function workerFor(url: string, replies: AgentReply[], tracing?: Tracing): AgentWorker {
  return new AgentWorker({
    agent: httpAgent('payment', remoteSimMapping, { env: { REMOTE_URL: url } }),
    instanceId: 'agent-payment-1',
    clock: systemClock,
    breakers: neverOpen,
    reply: async (_to, reply) => {
      replies.push(reply);
    },
    sleep,
    random: () => 0,
    logger,
    defaults: { retry: { maxAttempts: 2, initialBackoffMs: 1, maxBackoffMs: 1, multiplier: 1, jitter: 0 } },
    ...(tracing && { tracing }),
  });
}

function request(traceparent?: string): AgentRequest {
  return {
    schemaVersion: 1,
    processId: 'p-7',
    orderId: 'order-7',
    step: 'charge-payment',
    stepIndex: 1,
    mode: 'forward',
    agent: 'payment',
    operation: 'charge',
    attempt: 4,
    idempotencyKey: 'p-7/charge-payment',
    completeBy: Date.now() + 60_000,
    payload: { amount: 42 },
    replyTo: 'scheduler.replies',
    ...(traceparent !== undefined && { traceparent }),
  };
}

const answer = json(200, { effectId: 'eff-1', result: { charged: 42 } });

describe('the HTTP agent and trace context', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('sends each try’s span context as the traceparent header, in the trace of the scheduler’s dispatch', async () => {
    const remote = await startRemote([json(503, { error: 'busy' }), answer]);
    server = remote.server;
    const recorder = new RecordingTracing();
    const replies: AgentReply[] = [];

    const outcome = await workerFor(remote.url, replies, recorder.tracing('agent-payment')).handle(request(DISPATCH));

    expect(outcome.kind).toBe('replied-ok');
    const attempt = recorder.span('payment.charge attempt 4');
    expect(attempt).toMatchObject({ traceId: DISPATCH.split('-')[1], parentSpanId: DISPATCH.split('-')[2], attributes: { outcome: 'replied-ok', calls: 2 } });
    const tries = [recorder.span('payment.charge try 1'), recorder.span('payment.charge try 2')];
    expect(tries[0]).toMatchObject({ kind: 'client', parentSpanId: attempt.spanId, failed: true });
    expect(tries[1]).toMatchObject({ kind: 'client', parentSpanId: attempt.spanId, failed: false });
    expect(remote.received.map((r) => r.headers['traceparent'])).toEqual(tries.map((t) => `00-${t.traceId}-${t.spanId}-01`));
    // The reply names the attempt span, which the scheduler's `apply reply` span links to.
    expect(replies.map((r) => r.traceparent)).toEqual([`00-${attempt.traceId}-${attempt.spanId}-01`]);
  });

  it('sends no traceparent header and no reply context when the agent does not trace, even if the request carries one', async () => {
    const remote = await startRemote([answer]);
    server = remote.server;
    const replies: AgentReply[] = [];

    const outcome = await workerFor(remote.url, replies).handle(request(DISPATCH));

    expect(outcome.kind).toBe('replied-ok');
    expect(remote.received).toHaveLength(1);
    expect(remote.received[0]?.headers).not.toHaveProperty('traceparent');
    expect(replies[0]).not.toHaveProperty('traceparent');
  });
});
