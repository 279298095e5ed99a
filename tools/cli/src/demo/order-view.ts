/** What the demo shows of one process. */
export interface OrderView {
  orderId: string;
  state: string;
  steps: { name: string; state: string; dispatches: number }[];
  failureCount: number;
  attempt: number;
  createdAt: Date;
  updatedAt: Date;
}

/** States after which the demo stops waiting for an order. */
export const FINAL_STATES = ['Processed', 'Compensated', 'Canceled', 'Error'];
