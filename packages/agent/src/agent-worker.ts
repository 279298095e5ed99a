import type { Logger } from 'pino';
import {
  AgentReply,
  SCHEMA_VERSION,
  describeIssues,
  type AgentRequest,
  type JsonObject,
  type RetryPolicy,
} from '@sas/contracts';
import { PermanentError, TransientError, ensureError, type Clock, type Tracing } from '@sas/runtime';
import type { AgentCall } from './agent-call';
import { traceAttempt, traceTry } from './attempt-trace';
import type { AgentDefinition } from './agent-definition';
import { backoffDelay } from './backoff';
import type { Breakers } from './breakers';
import { carriedResult } from './carried-result';
import { CircuitOpenError } from './circuit-open-error';
import { startDeadline } from './deadline';
import { HANDLE_OUTCOME_KINDS, type HandleOutcome } from './handle-outcome';
import { resolveOperation, type ResolvedOperation } from './resolve-operation';
import type { Sleep } from './sleep';

/** What the agent falls back on when a request does not say. */
export interface AgentWorkerDefaults {
  /** Used when `request.retry` is absent. */
  retry: RetryPolicy;
}

/** Everything {@link AgentWorker} touches, injected so a simulation can drive it on virtual time. */
export interface AgentWorkerDeps {
  /** The remote service this agent serves (`agent.name`, e.g. `payment`) and its operations' handlers. */
  agent: AgentDefinition;
  /** This process, named in every reply. */
  instanceId: string;
  clock: Clock;
  breakers: Breakers;
  /** Sends a reply to a queue; rejects when it cannot (then the request is redelivered). */
  reply: (replyTo: string, reply: AgentReply) => Promise<void>;
  sleep: Sleep;
  /** A number in [0, 1) for backoff jitter. */
  random: () => number;
  logger: Logger;
  defaults: AgentWorkerDefaults;
  /** A span per attempt and per try, in the order's trace. @default none (no tracing work at all) */
  tracing?: Tracing | undefined;
}

type ReplyBody =
  | { outcome: 'ok'; result: JsonObject; resultRefused?: string }
  | { outcome: 'error'; errorKind: 'permanent' | 'transient'; message: string }
  | { outcome: 'parked'; retryAfterMs: number; reason: string };

/**
 * The agent of the Scheduler Agent Supervisor pattern: runs one step's operation handler with
 * retries, backoff and a circuit breaker, always inside the step's complete-by time, and answers
 * the scheduler. Past complete-by it stops without a word: the supervisor owns the step from then
 * on, and another agent may already be running it (the remote's idempotency key keeps the effect single).
 *
 * @example
 * ```ts
 * const worker = new AgentWorker({ agent: { name: 'payment', operations: { charge, refund } }, instanceId,
 *   clock: systemClock, breakers, reply: (to, r) => bus.send(to, r), sleep, random: Math.random, logger, defaults });
 * bus.consume({ queue: QueueNames.agentRequests('payment'), schema: AgentRequest,
 *   handle: async (request) => { await worker.handle(request); } });
 * ```
 */
export class AgentWorker {
  private readonly counts = new Map<HandleOutcome['kind'], number>(HANDLE_OUTCOME_KINDS.map((k) => [k, 0]));

  constructor(private readonly deps: AgentWorkerDeps) {
    if (!deps.agent.name) throw new Error('AgentWorker needs the name of its remote service (agent.name)');
  }

  /**
   * Handles one request to the end. Resolves with what happened; rejects only when a reply could
   * not be sent, so the message is redelivered (the remote call is idempotent, so doing it again
   * is safe).
   */
  async handle(request: AgentRequest): Promise<HandleOutcome> {
    const { tracing } = this.deps;
    const outcome = tracing ? await traceAttempt(tracing, request, (traced) => this.run(traced)) : await this.run(request);
    this.counts.set(outcome.kind, (this.counts.get(outcome.kind) ?? 0) + 1);
    return outcome;
  }

  /** Requests handled so far, by outcome, for `/metrics`. */
  stats(): Record<string, number> {
    return Object.fromEntries([...this.counts].map(([k, v]) => [`requests_${k.replace(/-/g, '_')}`, v]));
  }

  private async run(request: AgentRequest): Promise<HandleOutcome> {
    const { clock } = this.deps;
    const log = this.deps.logger.child({
      processId: request.processId,
      orderId: request.orderId,
      step: request.step,
      attempt: request.attempt,
      mode: request.mode,
      operation: request.operation,
    });
    const now = clock.now();
    if (now >= request.completeBy) {
      log.info({ completeBy: request.completeBy, now }, 'expired before start');
      return { kind: 'expired-before-start' };
    }
    if (request.agent !== this.deps.agent.name) {
      const message = `request for agent '${request.agent}' reached agent '${this.deps.agent.name}'; the scheduler routed it to the wrong queue`;
      return this.send(request, log, { outcome: 'error', errorKind: 'permanent', message }, 0);
    }
    // Checked before any call and outside the breaker: such a request can never succeed.
    const operation = resolveOperation(this.deps.agent, request);
    if ('problem' in operation) {
      log.warn({ problem: operation.problem }, 'request refused before any call');
      return this.send(request, log, { outcome: 'error', errorKind: 'permanent', message: operation.problem }, 0);
    }
    const deadline = startDeadline(this.deps.sleep, request.completeBy - now);
    try {
      return await this.callWithRetries(request, operation, log, deadline.signal);
    } finally {
      deadline.cancel();
    }
  }

  private async callWithRetries(
    request: AgentRequest,
    operation: ResolvedOperation,
    log: Logger,
    signal: AbortSignal,
  ): Promise<HandleOutcome> {
    const { breakers, clock } = this.deps;
    const policy = request.retry ?? this.deps.defaults.retry;
    // Built once: every try hands the handler the same identity and idempotency key.
    const base: Omit<AgentCall<unknown>, 'tryNumber' | 'logger'> = {
      agent: request.agent,
      operation: request.operation,
      processId: request.processId,
      orderId: request.orderId,
      step: request.step,
      mode: request.mode,
      payload: request.payload,
      input: operation.input,
      results: request.results ?? {},
      ...(request.compensates && { compensates: request.compensates }),
      idempotencyKey: request.idempotencyKey,
      attempt: request.attempt,
      completeBy: request.completeBy,
      signal,
      // The attempt span's context (traceAttempt put it there); each try's span is its child.
      ...(this.deps.tracing && request.traceparent !== undefined && { traceparent: request.traceparent }),
    };
    const { tracing } = this.deps;
    let calls = 0;
    for (let tryNumber = 1; ; tryNumber += 1) {
      let value: unknown;
      try {
        value = await breakers.call(request.agent, () => {
          calls += 1;
          log.debug({ try: tryNumber }, 'calling remote');
          // The try's logger is built when a handler first uses it (the HTTP handler never does):
          // a pino child costs a level set-up per call.
          let tryLog: Logger | undefined;
          const call: AgentCall<unknown> = {
            ...base,
            tryNumber,
            get logger(): Logger {
              return (tryLog ??= log.child({ try: tryNumber }));
            },
          };
          return tracing ? traceTry(tracing, call, operation.handle) : operation.handle(call);
        });
      } catch (e) {
        const err = ensureError(e);
        if (this.expired(request, signal)) return this.silent(log, 'complete-by passed during a call', calls);
        if (err instanceof CircuitOpenError) return this.park(request, log, err.retryAfterMs, calls);
        if (err instanceof PermanentError) {
          log.warn({ try: tryNumber, err: err.message }, 'permanent fault; not retrying');
          return this.send(
            request,
            log,
            { outcome: 'error', errorKind: 'permanent', message: err.message },
            calls,
          );
        }
        // Anything else is an unknown outcome (the call may have taken effect), so it is treated as
        // transient: retried under the same idempotency key, bounded by maxAttempts and complete-by.
        if (err instanceof TransientError) log.warn({ try: tryNumber, err: err.message }, 'transient fault');
        else log.warn({ try: tryNumber, err: err.message }, 'handler threw neither TransientError nor PermanentError: unknown outcome, retried as transient');
        // The breaker may have opened on this very fault: park now rather than retry into it.
        const blockedMs = breakers.blockedFor(request.agent);
        if (blockedMs !== undefined) return this.park(request, log, blockedMs, calls);
        if (tryNumber >= policy.maxAttempts) {
          const message = `${request.agent}/${request.operation} failed ${tryNumber} times; last error: ${err.message}`;
          return this.send(request, log, { outcome: 'error', errorKind: 'transient', message }, calls);
        }
        const hintMs = err instanceof TransientError ? (err.retryAfterMs ?? 0) : 0;
        const delayMs = Math.max(backoffDelay(policy, tryNumber, this.deps.random), hintMs);
        if (clock.now() + delayMs >= request.completeBy) {
          // Waiting out the delay would only end past complete-by, where we must stop anyway.
          return this.silent(log, `the next try (in ${delayMs} ms) would start after complete-by`, calls);
        }
        log.debug({ try: tryNumber, delayMs, hintMs }, 'backing off before retry');
        await this.deps.sleep(delayMs, signal);
        if (this.expired(request, signal))
          return this.silent(log, 'complete-by passed during backoff', calls);
        continue;
      }
      const carried = carriedResult(value);
      if (carried.resultRefused !== undefined) {
        log.warn({ resultRefused: carried.resultRefused }, 'the effect happened but its result cannot be carried; replying ok without it');
      }
      return this.send(request, log, { outcome: 'ok', ...carried }, calls);
    }
  }

  private park(
    request: AgentRequest,
    log: Logger,
    retryAfterMs: number,
    calls: number,
  ): Promise<HandleOutcome> {
    const reason = `circuit open for ${request.agent}`;
    return this.send(
      request,
      log,
      { outcome: 'parked', retryAfterMs: Math.ceil(retryAfterMs), reason },
      calls,
    );
  }

  private expired(request: AgentRequest, signal: AbortSignal): boolean {
    return signal.aborted || this.deps.clock.now() >= request.completeBy;
  }

  private silent(log: Logger, reason: string, calls: number): HandleOutcome {
    log.info({ reason, calls }, 'complete-by passed; stopping without reply');
    return { kind: 'expired-silent', reason, calls };
  }

  /** Validates and sends a reply, unless complete-by has passed meanwhile (then: silence). */
  private async send(
    request: AgentRequest,
    log: Logger,
    body: ReplyBody,
    calls: number,
  ): Promise<HandleOutcome> {
    const at = this.deps.clock.now();
    if (at >= request.completeBy)
      return this.silent(log, `complete-by passed before the ${body.outcome} reply`, calls);
    const parsed = AgentReply.safeParse({
      schemaVersion: SCHEMA_VERSION,
      processId: request.processId,
      step: request.step,
      stepIndex: request.stepIndex,
      mode: request.mode,
      attempt: request.attempt,
      agent: request.agent,
      agentInstance: this.deps.instanceId,
      at,
      ...body,
      ...(this.deps.tracing && request.traceparent !== undefined && { traceparent: request.traceparent }),
    });
    if (!parsed.success) {
      throw new Error(
        `The agent built an invalid ${body.outcome} reply (${describeIssues(parsed.error).join('; ')}); this is a bug in @sas/agent`,
      );
    }
    try {
      await this.deps.reply(request.replyTo, parsed.data);
    } catch (e) {
      throw new Error(
        `Could not send the ${body.outcome} reply to '${request.replyTo}': ${ensureError(e).message}; the request will be redelivered and replayed under the same idempotency key`,
        { cause: e },
      );
    }
    // A success is logged at debug: the scheduler's commit line records the same step at info, and
    // each line written costs the agent a pipe write per step (decision 112).
    if (body.outcome === 'ok') log.debug({ outcome: body.outcome, calls }, 'replied');
    else log.info({ outcome: body.outcome, calls, detail: detailOf(body) }, 'replied');
    return outcomeOf(body, calls);
  }
}

function detailOf(body: Exclude<ReplyBody, { outcome: 'ok' }>): string {
  return body.outcome === 'error'
    ? `${body.errorKind}: ${body.message}`
    : `${body.reason}; retry after ${body.retryAfterMs} ms`;
}

function outcomeOf(body: ReplyBody, calls: number): HandleOutcome {
  switch (body.outcome) {
    case 'ok':
      return { kind: 'replied-ok', calls };
    case 'error':
      return { kind: 'replied-error', errorKind: body.errorKind, message: body.message, calls };
    case 'parked':
      return { kind: 'parked', retryAfterMs: body.retryAfterMs, calls };
  }
}
