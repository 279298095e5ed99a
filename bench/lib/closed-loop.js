// @ts-check
'use strict';

const { performance } = require('node:perf_hooks');
const { waitUntil } = require('./wait-until');

/** Statuses after which an order sends nothing more on its own (`Failed` leaves it in Error for an operator). */
const FINAL = new Set(['Processed', 'Compensated', 'Canceled', 'Duplicate', 'Rejected', 'Failed']);

/**
 * @typedef {object} ClosedLoopOptions
 * @property {import('@sas/client').SasClient} sas the application's client (its replyTo receives the status events)
 * @property {string} idPrefix orderIds are `<idPrefix>-<n>`; unique per loop, so events of another loop are ignored
 * @property {number} inFlight orders kept outstanding at all times
 */

/**
 * Orders kept `inFlight` at all times, as an application with that much concurrent work would
 * submit them: one order per free slot, and a new one the moment an order's final status event
 * arrives. Times are taken from the application's side (submit call → status event received),
 * which is what a user of the system waits for.
 */
class ClosedLoop {
  /** @param {ClosedLoopOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {Map<string, number>} orderId → performance.now() at submit */
    this.pending = new Map();
    /** @type {import('./window-figures').Completion[]} */
    this.completions = [];
    /** @type {Error | undefined} the first failed submit; the waits of the run throw it */
    this.failure = undefined;
    this.sending = false;
    this.submitted = 0;
    this.lastDoneAt = performance.now();
    /** @type {(() => void) | undefined} */
    this.unsubscribe = undefined;
  }

  /** Listens for status events, then submits the first `inFlight` orders. */
  async start() {
    this.unsubscribe = await this.options.sas.onStatus((event) => this.onStatus(event));
    this.sending = true;
    this.lastDoneAt = performance.now();
    for (let i = 0; i < this.options.inFlight; i++) this.submitNext();
  }

  /** Orders submitted and not finished yet. */
  inFlightOrders() {
    return [...this.pending.keys()];
  }

  /** performance.now() when `orderId` finished, or undefined while it has not. */
  doneAt(/** @type {string} */ orderId) {
    return this.completions.find((c) => c.orderId === orderId)?.doneAt;
  }

  /**
   * Throws when a submit failed, or when orders are outstanding but none finished for `stallMs`:
   * the system stopped making progress and waiting longer would only hide it.
   * @param {number} stallMs
   * @param {string} logHint where the service logs are, for the message
   */
  check(stallMs, logHint) {
    if (this.failure) throw this.failure;
    const quiet = performance.now() - this.lastDoneAt;
    if (this.pending.size > 0 && quiet > stallMs) {
      throw new Error(`No order finished for ${(quiet / 1000).toFixed(1)} s with ${this.pending.size} in flight; the system stopped making progress (see the service logs in ${logHint})`);
    }
  }

  /**
   * Stops submitting, waits for the orders in flight to finish (so the next run starts on an idle
   * system), and stops listening.
   * @param {{ stallMs: number, logHint: string, signal: AbortSignal }} options
   */
  async stop({ stallMs, logHint, signal }) {
    this.sending = false;
    try {
      await waitUntil(() => {
        this.check(stallMs, logHint);
        return this.pending.size === 0;
      }, { timeoutMs: stallMs * 4, intervalMs: 20, description: `the last ${this.pending.size} orders in flight to finish (see ${logHint})`, signal });
    } finally {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }

  /** @private */
  submitNext() {
    const n = ++this.submitted;
    const orderId = `${this.options.idPrefix}-${n}`;
    this.pending.set(orderId, performance.now());
    this.options.sas
      .submit({ orderId, workflow: 'order-fulfilment', payload: { sku: 'kettle', quantity: 1 + (n % 3), amount: 1999 + 250 * (n % 7) } })
      .catch((/** @type {unknown} */ error) => {
        this.failure ??= new Error(`Submitting ${orderId} failed: ${error instanceof Error ? error.message : String(error)}`);
      });
  }

  /**
   * @private
   * @param {import('@sas/contracts').StatusEvent} event
   */
  onStatus(event) {
    const orderId = event.orderId;
    if (orderId === undefined || !FINAL.has(event.status)) return;
    const submittedAt = this.pending.get(orderId);
    if (submittedAt === undefined) return; // another loop's order, or a second final status
    const doneAt = performance.now();
    this.pending.delete(orderId);
    this.completions.push({ orderId, submittedAt, doneAt, status: event.status });
    this.lastDoneAt = doneAt;
    if (this.sending) this.submitNext();
  }
}

module.exports = { ClosedLoop };
