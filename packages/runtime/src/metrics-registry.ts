import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A fresh prom-client registry for one process, with Node's default process metrics
 * (`process_*`, `nodejs_*`) in it. Every service builds its own and hands it to the
 * {@link ProbeServer}; nothing registers on prom-client's global registry, so two components
 * (or two tests) in one process never collide over a metric name.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
