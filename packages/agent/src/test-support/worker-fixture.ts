import type { AgentReply, AgentRequest, RetryPolicy } from '@sas/contracts';
import type { AgentDefinition } from '../agent-definition';
import { AgentWorker } from '../agent-worker';
import type { Breakers } from '../breakers';
import { captureLogger, type LogLine } from './capture-logger';
import { passThroughBreakers } from './pass-through-breakers';
import { scriptedRemote, type ReceivedCall, type Script } from './scripted-remote';
import { VirtualTime } from './virtual-time';

/** A sent reply with its destination. */
interface SentReply {
  to: string;
  reply: AgentReply;
}

/** Options of {@link workerFixture}. */
export interface WorkerFixtureOptions {
  script: Script[];
  breakers?: Breakers;
  random?: () => number;
  /** Make the next N reply sends fail. */
  failingReplies?: number;
  time?: VirtualTime;
  /** Operations besides the scripted `charge` and `refund`. */
  operations?: AgentDefinition['operations'];
}

/** Everything a worker test needs: the worker on virtual time, a scripted remote, captured replies and logs. */
export interface WorkerFixture {
  time: VirtualTime;
  worker: AgentWorker;
  calls: ReceivedCall[];
  replies: SentReply[];
  lines: LogLine[];
  request(overrides?: Partial<AgentRequest>): AgentRequest;
}

/** The policy the fixture's requests carry: no jitter surprises unless a test sets `random`. */
const TEST_POLICY: RetryPolicy = {
  maxAttempts: 4,
  initialBackoffMs: 100,
  maxBackoffMs: 1000,
  multiplier: 2,
  jitter: 0.5,
};

/** Builds an {@link AgentWorker} for the `payment` agent (`charge`, `refund`) wired to test doubles. */
export function workerFixture(options: WorkerFixtureOptions): WorkerFixture {
  const time = options.time ?? new VirtualTime();
  const { handler, calls } = scriptedRemote(time, options.script);
  const { logger, lines } = captureLogger();
  const replies: SentReply[] = [];
  let failing = options.failingReplies ?? 0;
  const worker = new AgentWorker({
    agent: { name: 'payment', operations: { charge: handler, refund: handler, ...options.operations } },
    instanceId: 'agent-payment-test-1',
    clock: time,
    breakers: options.breakers ?? passThroughBreakers,
    reply: (to, reply) => {
      if (failing > 0) {
        failing -= 1;
        return Promise.reject(new Error('Connection is closed.'));
      }
      replies.push({ to, reply });
      return Promise.resolve();
    },
    sleep: time.sleep,
    random: options.random ?? (() => 0),
    logger,
    defaults: { retry: { ...TEST_POLICY, maxAttempts: 2 } },
  });
  let n = 0;
  const request = (overrides: Partial<AgentRequest> = {}): AgentRequest => {
    n += 1;
    return {
      schemaVersion: 1,
      processId: `proc-${n}`,
      orderId: `order-${n}`,
      step: 'charge-card',
      stepIndex: 1,
      mode: 'forward',
      agent: 'payment',
      operation: 'charge',
      attempt: 3,
      idempotencyKey: `order-${n}/charge-card/forward`,
      completeBy: time.now() + 10_000,
      payload: { amount: 42 },
      retry: TEST_POLICY,
      replyTo: 'scheduler.replies',
      ...overrides,
    };
  };
  return { time, worker, calls, replies, lines, request };
}
