import { context, propagation } from '@opentelemetry/api';

/**
 * The W3C `traceparent` of the application's active span, when the application has registered an
 * OpenTelemetry SDK (with its W3C propagator, the default); undefined otherwise, at the cost of
 * the API's no-op. So an order submitted inside a traced request continues that request's trace.
 */
export function activeTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'];
}
