/** Fault settings for remote-sim, per service, as accepted by `PUT /admin/faults/:service`. */
export type FaultPlan = Record<string, Record<string, unknown>>;

/** Named fault levels for the demo. `mild` shows retries and one compensation; `chaos` much more. */
export function demoFaults(level: 'none' | 'mild' | 'chaos', failingOrderId: string | undefined): FaultPlan {
  const fail = failingOrderId ? { permanentFailOrders: [failingOrderId] } : {};
  switch (level) {
    case 'none':
      return {};
    case 'mild':
      return {
        inventory: { errorRate: 0.1, latencyMs: 5 },
        payment: { errorRate: 0.1, lostReplyRate: 0.05, latencyMs: 10 },
        shipping: { errorRate: 0.1, latencyMs: 5, ...fail },
      };
    case 'chaos':
      return {
        inventory: { errorRate: 0.3, latencyMs: 20 },
        payment: { errorRate: 0.3, lostReplyRate: 0.1, latencyMs: 30 },
        shipping: { errorRate: 0.3, lostReplyRate: 0.1, latencyMs: 20, ...fail },
      };
  }
}
