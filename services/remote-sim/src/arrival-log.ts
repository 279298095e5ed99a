import type { CallOutcome } from './call-stats';
import type { RemoteServiceName } from './remote-operations';

/**
 * One call as it reached a simulated service, whatever became of it: applied, replayed, refused,
 * failed by an injected fault, or held. The effect ledger says what took effect; arrivals say what
 * the engine sent and when, which is what its ordering guarantees are about (an undo must not
 * arrive before its forward call was answered; one dispatch per step and attempt).
 */
export interface Arrival {
  arrivalId: string;
  service: RemoteServiceName;
  operation: string;
  /** `undo` for the service's compensation, `forward` otherwise. */
  mode: 'forward' | 'undo';
  orderId: string;
  idempotencyKey: string;
  /** On an undo that named its forward call: that call's idempotency key. */
  compensates?: string;
  /** The workflow step, when the request body carries `step`. */
  step?: string;
  /** The process attempt (fencing token), when the request body carries `attempt`. */
  attempt?: number;
  /** The agent's try of this dispatch (1 for the first), when the request body carries `try`. */
  try?: number;
  /** When it arrived, epoch ms from the simulator's clock. */
  at: number;
  outcome: CallOutcome;
  /** True when this arrival applied an effect (false for replays, refusals and injected errors). */
  applied: boolean;
  /** When its answer was written; absent while the answer is held or when the client left first. */
  answeredAt?: number;
  /** When the client went away (or the server closed) before any answer was written. */
  abandonedAt?: number;
}

/** Which arrivals {@link ArrivalLog.list} returns; absent fields match everything. */
export interface ArrivalFilter {
  service?: RemoteServiceName;
  orderId?: string;
}

/** Every arrival in the order it came, with how and when each one ended. */
export class ArrivalLog {
  private readonly ordered: Arrival[] = [];
  private readonly byId = new Map<string, Arrival>();

  /** Appends an arrival. */
  record(arrival: Arrival): void {
    this.ordered.push(arrival);
    this.byId.set(arrival.arrivalId, arrival);
  }

  /** Marks an arrival answered at `at`; a no-op when it already ended or was cleared. */
  answered(arrivalId: string, at: number): void {
    const arrival = this.byId.get(arrivalId);
    if (arrival !== undefined && arrival.answeredAt === undefined && arrival.abandonedAt === undefined) arrival.answeredAt = at;
  }

  /** Marks an arrival left without an answer at `at`; a no-op when it already ended or was cleared. */
  abandoned(arrivalId: string, at: number): void {
    const arrival = this.byId.get(arrivalId);
    if (arrival !== undefined && arrival.answeredAt === undefined && arrival.abandonedAt === undefined) arrival.abandonedAt = at;
  }

  /** Arrivals in the order they came, optionally narrowed to one service and/or order. */
  list(filter: ArrivalFilter = {}): Arrival[] {
    return this.ordered.filter(
      (a) => (filter.service === undefined || a.service === filter.service) && (filter.orderId === undefined || a.orderId === filter.orderId),
    );
  }

  /** Forgets every arrival (with the ledger, between tests or demo runs). */
  clear(): void {
    this.ordered.length = 0;
    this.byId.clear();
  }
}
