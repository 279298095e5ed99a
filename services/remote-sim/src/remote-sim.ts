import type { Clock, Logger } from '@sas/runtime';
import { pino } from 'pino';
import { ArrivalLog, type Arrival, type ArrivalFilter } from './arrival-log';
import { CallStats, type CallOutcome, type StatsSnapshot } from './call-stats';
import { compensatedKeyOf } from './compensated-key';
import { describeIssues } from './describe-issues';
import { EffectLedger, type Effect, type EffectFilter } from './effect-ledger';
import { FaultPlan } from './fault-plan';
import type { ServiceFaults } from './fault-settings';
import { MalformedJson } from './malformed-json';
import { operationResult } from './operation-result';
import { RemoteCallBody, type RemoteCallRequest } from './remote-call-body';
import { RemoteOperations, isCompensation, isOperationOf, isRemoteService, type RemoteServiceName } from './remote-operations';
import type { RemoteSimMode } from './remote-sim-mode';
import type { RandomSource } from './seeded-random';
import { answer, errorAnswer, type SimResponse } from './sim-response';

/** Longest accepted `Idempotency-Key`. @default 255 */
export const maxIdempotencyKeyLength = 255;

/** What {@link RemoteSim} needs: time, dice and (optionally) a logger. */
export interface RemoteSimOptions {
  clock: Clock;
  random: RandomSource;
  /** Calls are logged at debug, fault changes at info. @default a silent logger */
  logger?: Logger;
  /** Whether the simulator covers for its caller (see {@link RemoteSimMode}). @default 'protective' */
  mode?: RemoteSimMode;
}

/** Called with a service whose held answers are to be written now; returns how many it wrote. */
export type ReleaseListener = (service: RemoteServiceName) => number;

/**
 * The simulated payment, inventory and shipping services, without any I/O: it decides each answer,
 * applies effects to the {@link EffectLedger} at most once per idempotency key, injects the faults
 * in force, and counts every call. The HTTP server and the unit tests drive the same object.
 *
 * A call is checked in this order, so each fault means one thing:
 * unknown service/operation (404) → bad input (400) → `hang` → outage (503 + Retry-After) →
 * `errorRate` (503, no effect) → known key: replay (200) or conflict (409) → forward key already
 * compensated (409, no effect) → permanent failure (422, no effect) → apply the effect →
 * `lostReplyRate` (503 after the effect) → 200.
 * Latency delays every answer, the effect having already been applied.
 *
 * An undo that names its forward call's key (`Compensates-Idempotency-Key`, or the payload's
 * `originalIdempotencyKey`) tombstones that key when it is applied, even when there was nothing to
 * undo yet (then its result says `noop: true`). A forward call under a tombstoned key is refused
 * with 409 and no effect, so a forward call still queued or retrying when its step was canceled
 * can never overtake its undo. A forward call that took effect before its undo still replays.
 * That protection covers for the caller; in the `plain` mode there is none (see {@link RemoteSimMode}).
 * In the `keyless` mode keys are not honoured at all: every call applies a new effect.
 *
 * Every call with a key and a valid body is also recorded as an {@link Arrival} (`GET /arrivals`),
 * whatever its outcome, so a test can check the order in which the caller sent its calls.
 */
export class RemoteSim {
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly logger: Logger;
  private readonly plan = new FaultPlan();
  private readonly effects = new EffectLedger();
  private readonly arrivalLog = new ArrivalLog();
  private readonly releaseListeners: ReleaseListener[] = [];
  private readonly calls: CallStats;
  /** The mode this simulator runs in. */
  readonly mode: RemoteSimMode;
  // Never reset, so ids stay unique across ledger clears within one process.
  private serial = 0;
  private arrivalSerial = 0;

  constructor(options: RemoteSimOptions) {
    this.clock = options.clock;
    this.random = options.random;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.mode = options.mode ?? 'protective';
    this.calls = new CallStats(this.clock.now());
  }

  /** Handles `POST /services/:service/:operation`. */
  call(request: RemoteCallRequest): SimResponse {
    const { service, operation, idempotencyKey } = request;
    if (!isRemoteService(service)) {
      const known = Object.keys(RemoteOperations).join(', ');
      return errorAnswer(404, `Unknown service '${service}'; use one of: ${known}`);
    }
    if (!isOperationOf(service, operation)) {
      const ops = RemoteOperations[service];
      return errorAnswer(404, `${service} has no operation '${operation}'; use ${ops.forward} or ${ops.compensation}`);
    }
    // Set once the call is valid enough to name a dispatch; `done` then notes how it ended.
    const seen: { arrival?: Arrival } = {};
    const done = (outcome: CallOutcome, response: SimResponse, orderId?: string): SimResponse => {
      this.calls.count(service, operation, outcome);
      if (seen.arrival !== undefined) {
        seen.arrival.outcome = outcome;
        response = { ...response, arrivalId: seen.arrival.arrivalId };
      }
      const status = response.kind === 'answer' ? response.status : null;
      // `remoteService`, not `service`: the logger's base fields already name this process's service.
      this.logger.debug({ remoteService: service, operation, orderId, idempotencyKey, outcome, status }, 'call');
      return response;
    };

    if (idempotencyKey === undefined || idempotencyKey.trim() === '') {
      return done('bad-request', errorAnswer(400, 'Missing Idempotency-Key header; send one stable key per step so retries cannot apply the effect twice'));
    }
    if (idempotencyKey.length > maxIdempotencyKeyLength) {
      return done('bad-request', errorAnswer(400, `Idempotency-Key is ${idempotencyKey.length} characters; use at most ${maxIdempotencyKeyLength}`));
    }
    if (request.body instanceof MalformedJson) {
      return done('bad-request', errorAnswer(400, `Body is not valid JSON (${request.body.reason}); send {"orderId": string, "payload": object}`));
    }
    const parsed = RemoteCallBody.safeParse(request.body);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error).join('; ');
      return done('bad-request', errorAnswer(400, `Invalid body: ${issues}; send {"orderId": string, "payload": object}`));
    }
    const { orderId, payload, results } = parsed.data;
    const compensates = compensatedKeyOf(service, operation, request.compensatesKey, payload, maxIdempotencyKeyLength);
    if (!compensates.ok) return done('bad-request', errorAnswer(400, compensates.error), orderId);
    const faults = this.plan.get(service);
    const delayMs = faults.latencyMs;
    const now = this.clock.now();
    const arrival = this.arrive(service, operation, orderId, idempotencyKey, compensates.key, parsed.data, now);
    seen.arrival = arrival;

    if (faults.hang) return done('hang', { kind: 'hang' }, orderId);
    if (faults.outageUntil !== null && now < faults.outageUntil) {
      const retryAfterS = Math.max(1, Math.ceil((faults.outageUntil - now) / 1000));
      const message = `${service} is down for maintenance until ${new Date(faults.outageUntil).toISOString()}; retry after ${retryAfterS}s with the same Idempotency-Key`;
      return done('outage', errorAnswer(503, message, { 'Retry-After': String(retryAfterS) }, delayMs), orderId);
    }
    if (faults.errorRate > 0 && this.random.next() < faults.errorRate) {
      return done('error503', errorAnswer(503, unavailable(service), {}, delayMs), orderId);
    }

    // A keyless remote has no memory of keys: a repeat is applied again, a second effect.
    const existing = this.mode === 'keyless' ? undefined : this.effects.find(service, idempotencyKey);
    if (existing !== undefined) {
      if (existing.operation !== operation || existing.orderId !== orderId) {
        const message =
          `Idempotency-Key '${idempotencyKey}' was already used for ${service}.${existing.operation} of order '${existing.orderId}'; ` +
          `this call is ${service}.${operation} of order '${orderId}'. Use a distinct key per step and mode`;
        return done('conflict', errorAnswer(409, message, {}, delayMs), orderId);
      }
      const replay = answer(200, responseBody(existing), { 'Idempotent-Replayed': 'true' }, delayMs);
      return done('replayed', held(replay, service, faults, operation), orderId);
    }
    const protective = this.mode === 'protective';
    const undo = !protective || isCompensation(service, operation) ? undefined : this.effects.undoOf(service, idempotencyKey);
    if (undo !== undefined) {
      const message =
        `${service}.${operation} '${idempotencyKey}' was already compensated (undo ${undo.effectId}); ` +
        'the forward call is refused so its undo cannot be overtaken. Do not retry it: the step counts as undone';
      return done('tombstoned', errorAnswer(409, message, {}, delayMs), orderId);
    }

    const failure = permanentFailure(service, operation, orderId, faults);
    if (failure !== undefined) return done('permanent', errorAnswer(422, failure, {}, delayMs), orderId);

    const effect = this.apply(service, operation, orderId, idempotencyKey, { payload, results }, compensates.key, now);
    arrival.applied = true;
    if (faults.lostReplyRate > 0 && this.random.next() < faults.lostReplyRate) {
      return done('lost', errorAnswer(503, unavailable(service), {}, delayMs), orderId);
    }
    return done('ok', held(answer(200, responseBody(effect), {}, delayMs), service, faults, operation), orderId);
  }

  /**
   * Writes the service's held answers now (`POST /admin/release/:service`); returns how many. The
   * hold itself stays in force for later calls until the faults are changed.
   */
  release(service: RemoteServiceName): number {
    const released = this.releaseListeners.reduce((sum, listener) => sum + listener(service), 0);
    this.logger.info({ remoteService: service, released }, 'held answers released');
    return released;
  }

  /** Registers the layer that holds answers (the HTTP server), so {@link release} reaches it. */
  onRelease(listener: ReleaseListener): void {
    this.releaseListeners.push(listener);
  }

  /** Notes that an arrival's answer was written at the clock's current time. */
  answered(arrivalId: string): void {
    this.arrivalLog.answered(arrivalId, this.clock.now());
  }

  /** Notes that an arrival's client left (or the server closed) before any answer was written. */
  abandoned(arrivalId: string): void {
    this.arrivalLog.abandoned(arrivalId, this.clock.now());
  }

  /** Calls as they arrived, in order (`GET /arrivals`). */
  arrivals(filter: ArrivalFilter = {}): Arrival[] {
    return this.arrivalLog.list(filter).map((a) => structuredClone(a));
  }

  /** Replaces the faults of one service (`PUT /admin/faults/:service`). */
  setFaults(service: RemoteServiceName, faults: ServiceFaults): void {
    this.plan.set(service, faults);
    this.logger.info({ remoteService: service, faults }, 'faults set');
  }

  /** Resets the faults of one service, or of all (`DELETE /admin/faults[/:service]`). */
  clearFaults(service?: RemoteServiceName): void {
    this.plan.clear(service);
    this.logger.info({ remoteService: service ?? 'all' }, 'faults cleared');
  }

  /** The faults in force, per service (`GET /admin/faults`). */
  faults(): Record<RemoteServiceName, ServiceFaults> {
    return this.plan.snapshot();
  }

  /** Effects applied, in order (`GET /ledger`). */
  ledger(filter: EffectFilter = {}): Effect[] {
    return this.effects.list(filter).map((e) => structuredClone(e));
  }

  /** Deletes one effect (`DELETE /ledger/:effectId`), as a keyless record store's undo does; undefined when there is none. */
  deleteEffect(effectId: string): Effect | undefined {
    const effect = this.effects.remove(effectId);
    this.logger.info({ effectId, deleted: effect !== undefined }, 'effect deleted');
    return effect && structuredClone(effect);
  }

  /** Call counters (`GET /stats`). */
  stats(): StatsSnapshot {
    return this.calls.snapshot();
  }

  /** Forgets every effect and arrival and restarts the counters (`DELETE /ledger`); faults stay as they are. */
  resetLedger(): void {
    this.effects.clear();
    this.arrivalLog.clear();
    this.calls.reset(this.clock.now());
    this.logger.info('ledger and stats cleared');
  }

  /** The clock's current time; lets the HTTP layer validate fault bodies against the same clock. */
  now(): number {
    return this.clock.now();
  }

  private arrive(
    service: RemoteServiceName,
    operation: string,
    orderId: string,
    idempotencyKey: string,
    compensates: string | undefined,
    body: RemoteCallBody,
    now: number,
  ): Arrival {
    this.arrivalSerial += 1;
    const arrival: Arrival = {
      arrivalId: `arr-${String(this.arrivalSerial).padStart(6, '0')}`,
      service,
      operation,
      mode: isCompensation(service, operation) ? 'undo' : 'forward',
      orderId,
      idempotencyKey,
      ...(compensates === undefined ? {} : { compensates }),
      ...(body.step === undefined ? {} : { step: body.step }),
      ...(body.attempt === undefined ? {} : { attempt: body.attempt }),
      ...(body.try === undefined ? {} : { try: body.try }),
      at: now,
      outcome: 'ok',
      applied: false,
    };
    this.arrivalLog.record(arrival);
    return arrival;
  }

  private apply(
    service: RemoteServiceName,
    operation: string,
    orderId: string,
    idempotencyKey: string,
    body: Pick<RemoteCallBody, 'payload' | 'results'>,
    compensates: string | undefined,
    now: number,
  ): Effect {
    this.serial += 1;
    const serial = String(this.serial).padStart(6, '0');
    const original = isCompensation(service, operation) ? this.originalOf(service, orderId, compensates) : undefined;
    const effect: Effect = {
      effectId: `eff-${serial}`,
      service,
      operation,
      orderId,
      idempotencyKey,
      at: now,
      result: operationResult({ service, operation, payload: body.payload, serial, original }),
      // Recording it tombstones the forward key (see EffectLedger.undoOf).
      ...(compensates === undefined ? {} : { compensates }),
      ...(body.results === undefined ? {} : { inputs: structuredClone(body.results) }),
    };
    this.effects.record(effect, { repeat: this.mode === 'keyless' });
    return effect;
  }

  // The forward effect a compensation undoes: the one under the forward key when the caller names
  // it, otherwise the latest forward effect of the same order on this service.
  private originalOf(service: RemoteServiceName, orderId: string, named: string | undefined): Effect | undefined {
    const forward = RemoteOperations[service].forward;
    const candidate =
      named !== undefined
        ? this.effects.find(service, named)
        : this.effects.findLast((e) => e.service === service && e.orderId === orderId && e.operation === forward);
    return candidate !== undefined && candidate.orderId === orderId && candidate.operation === forward ? candidate : undefined;
  }
}

// A successful answer of an operation the faults hold waits for `release`.
function held(response: SimResponse, service: RemoteServiceName, faults: ServiceFaults, operation: string): SimResponse {
  return response.kind === 'answer' && faults.holdOperations.includes(operation) ? { ...response, heldFor: service } : response;
}

// The same words for an injected error and a lost reply: a client must not be able to tell them apart.
function unavailable(service: RemoteServiceName): string {
  return `${service} is temporarily unavailable; retry with the same Idempotency-Key`;
}

function permanentFailure(service: RemoteServiceName, operation: string, orderId: string, faults: ServiceFaults): string | undefined {
  if (faults.permanentFailOperations.includes(operation)) {
    return `${service}.${operation} is refused for every order (injected permanent failure); do not retry, fail or compensate the step`;
  }
  if (!isCompensation(service, operation) && faults.permanentFailOrders.includes(orderId)) {
    return `${service}.${operation} is refused for order '${orderId}' (injected permanent failure); do not retry, fail or compensate the step`;
  }
  return undefined;
}

// The first answer for a key, rebuilt from its effect: replays are byte-for-byte the same body.
function responseBody(effect: Effect): Record<string, unknown> {
  const { effectId, service, operation, orderId, idempotencyKey, result } = effect;
  return { effectId, service, operation, orderId, idempotencyKey, result: structuredClone(result) };
}
