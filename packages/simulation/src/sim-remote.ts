import type { AgentCall, Operation } from '@sas/agent';
import type { JsonObject } from '@sas/contracts';
import { PermanentError, TransientError } from '@sas/runtime';
import type { SimActor } from './sim-actor';
import type { SimWorld } from './sim-world';
import { seededRandom, type SeededRandom } from './seeded-random';

/**
 * Mixed into the seed for the declines' own random stream: added after seeds were first recorded,
 * they must not shift the run's stream, so every seed without declines replays as it did.
 */
export const DECLINES_STREAM = 0x5bd1e995;

/** One effect a remote applied (or an undo that found nothing to undo). */
export interface LedgerEntry {
  seq: number;
  at: number;
  service: string;
  operation: string;
  mode: 'forward' | 'compensate';
  orderId: string;
  step: string;
  idempotencyKey: string;
  /** On an undo that named its forward call: that call's key. */
  compensates?: string;
  /** `noop` when an undo found no forward effect to undo (the step never took effect here). */
  kind: 'applied' | 'noop';
  result: JsonObject;
}

/** How the remotes misbehave while faults are on; drawn per seed. */
export interface RemoteFaultPlan {
  /** Chance a call fails before taking effect. */
  transient: number;
  /** Chance a call takes effect and its answer is lost. */
  lostReply: number;
  /** Chance a call hangs until the agent gives up at complete-by. */
  hang: number;
  latencyMs: readonly [number, number];
  /** Windows (virtual epoch ms) in which a service answers 503 to everything. */
  outages: readonly { service: string; from: number; to: number }[];
  /**
   * Chance that a request is still in the network when the agent gives up at complete-by, and
   * reaches the remote afterwards. Only for services that honour `compensates`: for the others no
   * protocol can stop such a call from landing after its undo (see docs/http-mapping.md and docs/guarantees.md).
   */
  late: number;
  /** Services that refuse a forward call whose key an undo already named (the tombstone); the others ignore `compensates`. */
  honoursCompensates: ReadonlySet<string>;
  /**
   * Chance that a forward call is declined for a reason its payload does not show (a card declined,
   * an address the carrier cannot serve): a permanent refusal with no effect, which the remote
   * remembers under the key and replays, as the agent contract asks ("PermanentError for what never
   * will"; a remote that forgets it can see a redelivered request succeed after its refusal was
   * applied, and nothing then undoes that effect).
   */
  declines: number;
}

/**
 * The remote services of the simulation with their effect ledger: idempotent by key (a key seen
 * before replays its first answer), a forward call refused once its undo arrived (for services that
 * honour `compensates`), a permanent refusal for orders whose payload says `refuse: <service>` and
 * now and then for any forward call (see {@link RemoteFaultPlan.declines}), and the faults of the plan. The ledger is the evidence the invariants read.
 */
export class SimRemote {
  readonly ledger: LedgerEntry[] = [];
  private readonly byKey = new Map<string, LedgerEntry>();
  private readonly tombstones = new Set<string>();
  /** Keys declined once, with the answer they replay. */
  private readonly declined = new Map<string, string>();
  /** Declines draw from a stream of their own, so seeds without them keep their interleavings. */
  private readonly declines: SeededRandom;

  constructor(
    private readonly world: SimWorld,
    private readonly plan: RemoteFaultPlan,
  ) {
    this.declines = seededRandom(world.rng.seed ^ DECLINES_STREAM);
  }

  /** The operation every agent of `service` hosts: it calls this remote as `actor`. */
  operation(actor: SimActor, service: string): Operation {
    return (call) => this.call(actor, service, call);
  }

  private async call(actor: SimActor, service: string, call: AgentCall<unknown>): Promise<JsonObject> {
    const { world, plan } = this;
    const [min, max] = plan.latencyMs;
    await world.sleep(actor, world.rng.int(min, max), call.signal);
    if (call.signal.aborted) throw new TransientError(`${service} did not answer before complete-by`);
    const faults = world.faultsOn;
    if (world.rng.chance(faults ? plan.hang : 0)) {
      world.trace(`${actor.name} ${service}.${call.operation} ${call.orderId} hangs`);
      await world.sleep(actor, call.completeBy - world.clock.now() + 1, call.signal);
      throw new TransientError(`${service} hung`);
    }
    if (world.rng.chance(faults && plan.honoursCompensates.has(service) ? plan.late : 0)) {
      const landsIn = call.completeBy - world.clock.now() + world.rng.int(1, 3000);
      world.trace(`${actor.name} ${service}.${call.operation} ${call.orderId} is delayed in the network; lands in ${landsIn} ms`);
      world.clock.schedule(landsIn, null, () => {
        try {
          this.apply(service, call);
        } catch (e) {
          world.trace(`late ${service}.${call.operation} ${call.orderId} refused: ${(e as Error).message}`);
        }
      });
      await world.sleep(actor, call.completeBy - world.clock.now() + 1, call.signal);
      throw new TransientError(`${service} did not answer`);
    }
    const lose = world.rng.chance(faults ? plan.lostReply : 0);
    const fail = world.rng.chance(faults ? plan.transient : 0);
    const decline = faults && call.mode === 'forward' && this.declines.chance(plan.declines);
    return world.io(actor, 'remote', `${service}.${call.operation} ${call.orderId} ${call.idempotencyKey}`, () => {
      const now = world.clock.now();
      if (faults && plan.outages.some((o) => o.service === service && o.from <= now && now < o.to)) throw new TransientError(`${service} answered 503 (outage)`);
      if (fail) throw new TransientError(`${service} answered 500`);
      const key = `${service}\u0000${call.idempotencyKey}`;
      if (decline && !this.byKey.has(key) && !this.declined.has(key)) {
        this.declined.set(key, `${service} declines ${call.idempotencyKey}`);
        world.trace(`DECLINE ${service}.${call.operation} ${call.orderId} ${call.idempotencyKey}`);
      }
      const result = this.apply(service, call);
      if (lose) throw new TransientError(`${service}'s answer was lost (the effect happened)`);
      return result;
    });
  }

  private apply(service: string, call: AgentCall<unknown>): JsonObject {
    const key = `${service}\u0000${call.idempotencyKey}`;
    const seen = this.byKey.get(key);
    if (seen) return seen.result;
    const refusal = this.declined.get(key);
    if (refusal !== undefined) throw new PermanentError(refusal);
    const payload = call.payload as { refuse?: string };
    if (call.mode === 'forward') {
      if (payload.refuse === service) throw new PermanentError(`${service} refuses order ${call.orderId}`);
      if (this.plan.honoursCompensates.has(service) && this.tombstones.has(key)) {
        throw new PermanentError(`${service} refuses ${call.idempotencyKey}: it was already undone`);
      }
      const ref = `${service}-${this.ledger.length + 1}`;
      // A booking answers its price (the trip payload's), which a trip's condition reads from the results.
      const price = (call.payload as Record<string, unknown>)[`${service}Price`];
      return this.record(service, call, 'applied', typeof price === 'number' ? { ref, price } : { ref }).result;
    }
    const forwardKey = call.compensates?.idempotencyKey;
    if (forwardKey !== undefined && this.plan.honoursCompensates.has(service)) this.tombstones.add(`${service}\u0000${forwardKey}`);
    const undone = this.ledger.find(
      (e) => e.service === service && e.mode === 'forward' && e.orderId === call.orderId && e.step === call.step && (forwardKey === undefined || e.idempotencyKey === forwardKey),
    );
    return this.record(service, call, undone ? 'applied' : 'noop', { undone: undone?.result['ref'] ?? null }).result;
  }

  private record(service: string, call: AgentCall<unknown>, kind: LedgerEntry['kind'], result: JsonObject): LedgerEntry {
    const entry: LedgerEntry = {
      seq: this.ledger.length + 1,
      at: this.world.clock.now(),
      service,
      operation: call.operation,
      mode: call.mode,
      orderId: call.orderId,
      step: call.step,
      idempotencyKey: call.idempotencyKey,
      ...(call.compensates ? { compensates: call.compensates.idempotencyKey } : {}),
      kind,
      result,
    };
    this.ledger.push(entry);
    this.byKey.set(`${service}\u0000${call.idempotencyKey}`, entry);
    if (this.world.tracing) this.world.trace(`LEDGER ${service}.${call.operation} ${call.mode} ${call.orderId} ${kind} ${JSON.stringify(result)}`);
    return entry;
  }
}
