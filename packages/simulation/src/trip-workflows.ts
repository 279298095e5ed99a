/**
 * The trip workflows the simulation runs beside the built-in ones: every construct of issue 23 (a
 * parallel group, conditions over the payload and over earlier results, a durable wait by `ms` and
 * by `until`, signal steps with each `onTimeout`, two signal steps waiting for the same name). Plain
 * data, loaded through `loadWorkflows` as a WORKFLOWS_FILE is, so the definitions are checked as
 * an operator's would be.
 */

/** How long a trip waits for its `confirm` signal; inside a seed's fault window (5–40 s) more often than not. */
export const TRIP_SIGNAL_TIMEOUT_MS = 15_000;
/** The cooling-off wait of `trip-booking`. */
export const TRIP_COOLING_OFF_MS = 3_000;
/** `trip-booking-lenient` insures a trip whose flight and hotel cost more than this together. */
export const TRIP_INSURE_ABOVE = 500;

/** The trip workflows' names, and which `onTimeout` each signal step has. */
export const TRIP_WORKFLOWS = {
  /** Compensates when `confirm` does not come in time; the example's flow (examples/trip-booking). */
  strict: 'trip-booking',
  /** Goes on without the signal (`continue`), waits `until` an instant the payload gives. */
  lenient: 'trip-booking-lenient',
  /** Stops in Error for an operator (`error`); waits for two `confirm` signals, one per step. */
  manual: 'trip-booking-manual',
} as const;

export type TripWorkflow = (typeof TRIP_WORKFLOWS)[keyof typeof TRIP_WORKFLOWS];

/** The services the trip workflows call; the simulation starts agents for them only in seeds with trips. */
export const TRIP_SERVICES = ['flight', 'hotel'] as const;

const retry = { maxAttempts: 5, initialBackoffMs: 50, maxBackoffMs: 1000, multiplier: 2, jitter: 0.5 };
const task = (name: string, agent: string, operation: string, compensation: string | null): Record<string, unknown> => ({
  name,
  agent,
  operation,
  compensation,
  completeByMs: 5000,
  retry,
});
const policies = { failureThreshold: 3, onThreshold: { policy: 'compensate' }, onPermanentFailure: 'compensate', retentionMs: 7 * 24 * 3600 * 1000 };

/** trip-booking: flight and hotel in parallel (the hotel skipped for a day trip), confirm, cooling-off, charge. */
const strict = {
  name: TRIP_WORKFLOWS.strict,
  version: 1,
  steps: [
    { name: 'book-travel', condition: '!payload.dayTrip', parallel: [task('book-flight', 'flight', 'book', 'cancel'), task('book-hotel', 'hotel', 'book', 'cancel')] },
    { ...task('book-day-flight', 'flight', 'book', 'cancel'), condition: 'payload.dayTrip' },
    { name: 'confirm', signal: { name: 'confirm', timeoutMs: TRIP_SIGNAL_TIMEOUT_MS, onTimeout: 'compensate' } },
    { name: 'cooling-off', condition: '!results.confirm.express', wait: { ms: TRIP_COOLING_OFF_MS } },
    task('charge-card', 'payment', 'charge', 'refund'),
  ],
  ...policies,
};

/**
 * trip-booking-lenient: both bookings always; `confirm` may time out (`continue`); insurance only
 * when the remotes' prices (earlier results) add up to more than {@link TRIP_INSURE_ABOVE}; a wait
 * until the payload's `holdUntil` (RFC 3339); then the charge.
 */
const lenient = {
  name: TRIP_WORKFLOWS.lenient,
  version: 1,
  steps: [
    { name: 'book-travel', parallel: [task('book-flight', 'flight', 'book', 'cancel'), task('book-hotel', 'hotel', 'book', 'cancel')] },
    { name: 'confirm', signal: { name: 'confirm', timeoutMs: TRIP_SIGNAL_TIMEOUT_MS, onTimeout: 'continue' } },
    { ...task('insure-trip', 'payment', 'insure', 'void'), condition: `results['book-flight'].price + results['book-hotel'].price > ${TRIP_INSURE_ABOVE}` },
    { name: 'hold-fare', wait: { until: 'payload.holdUntil' } },
    task('charge-card', 'payment', 'charge', 'refund'),
  ],
  ...policies,
};

/** trip-booking-manual: as trip-booking, but a missing signal stops in Error, and a second `confirm` is awaited after the charge. */
const manual = {
  name: TRIP_WORKFLOWS.manual,
  version: 1,
  steps: [
    { name: 'book-travel', condition: '!payload.dayTrip', parallel: [task('book-flight', 'flight', 'book', 'cancel'), task('book-hotel', 'hotel', 'book', 'cancel')] },
    { ...task('book-day-flight', 'flight', 'book', 'cancel'), condition: 'payload.dayTrip' },
    { name: 'confirm', signal: { name: 'confirm', timeoutMs: TRIP_SIGNAL_TIMEOUT_MS, onTimeout: 'error' } },
    task('charge-card', 'payment', 'charge', 'refund'),
    { name: 'reconfirm', signal: { name: 'confirm', timeoutMs: TRIP_SIGNAL_TIMEOUT_MS, onTimeout: 'error' } },
  ],
  ...policies,
  onThreshold: { policy: 'error' },
};

/** The trip workflows as a WORKFLOWS_FILE holds them. */
export const TRIP_WORKFLOWS_JSON = JSON.stringify([strict, lenient, manual]);

/** The signal steps of each trip workflow, in order (the names they wait for are all `confirm`). */
export const SIGNAL_STEPS: Record<TripWorkflow, readonly string[]> = {
  [TRIP_WORKFLOWS.strict]: ['confirm'],
  [TRIP_WORKFLOWS.lenient]: ['confirm'],
  [TRIP_WORKFLOWS.manual]: ['confirm', 'reconfirm'],
};

export function isTripWorkflow(name: string): name is TripWorkflow {
  return name === TRIP_WORKFLOWS.strict || name === TRIP_WORKFLOWS.lenient || name === TRIP_WORKFLOWS.manual;
}
