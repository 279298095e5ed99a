import type { ConsumerSpec } from '@sas/bus';
import { Alert, QueueNames } from '@sas/contracts';
import type { AlertInbox } from './alert-inbox';

/** Alerts stored at once by one dashboard: inserts are independent, so a few in parallel is safe. */
const ALERT_CONCURRENCY = 4;

/**
 * How the dashboard consumes the `alerts` queue: `bus.consume(alertConsumerSpec(inbox))`. The bus
 * validates each message against {@link Alert} and dead-letters one that does not match; a handler
 * that keeps failing (MongoDB down) is retried with backoff, then dead-lettered too.
 */
export function alertConsumerSpec(inbox: AlertInbox): ConsumerSpec<typeof Alert> {
  return {
    queue: QueueNames.alerts,
    schema: Alert,
    concurrency: ALERT_CONCURRENCY,
    handle: async (alert, meta) => {
      await inbox.receive(alert, meta);
    },
  };
}
