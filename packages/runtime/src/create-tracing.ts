import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { OtelTracing } from './otel-tracing';
import { traceSampler } from './trace-sampler';
import type { Tracing } from './tracing';
import type { TracingSettings } from './tracing-config';

/** Options of {@link createTracing}. */
export interface CreateTracingOptions {
  /** The service's own name: `service.name` unless OTEL_SERVICE_NAME says otherwise. */
  service: string;
  /** This instance, as `service.instance.id`. */
  instanceId?: string;
  /**
   * Export here instead of what OTEL_TRACES_EXPORTER names, each span as it ends (tests hand in
   * an `InMemorySpanExporter`). Tracing is on whatever OTEL_TRACES_EXPORTER says.
   */
  exporter?: SpanExporter;
}

/**
 * The service's tracing from the standard `OTEL_*` variables ({@link TracingConfig}), or undefined
 * when OTEL_TRACES_EXPORTER is `none` (the default): then components get no tracing and skip
 * every tracing step. OTLP spans are batched; {@link Tracing.shutdown} exports the rest.
 *
 * @example
 * ```ts
 * const tracing = createTracing(config, { service: 'scheduler', instanceId });
 * const engine = new ProcessEngine({ ...deps, tracing });
 * installShutdown(logger, [...closables, { name: 'tracing', close: () => tracing?.shutdown() ?? Promise.resolve() }]);
 * ```
 */
export function createTracing(settings: TracingSettings, options: CreateTracingOptions): Tracing | undefined {
  if (!options.exporter && settings.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const processor = options.exporter
    ? new SimpleSpanProcessor({ exporter: options.exporter })
    : settings.OTEL_TRACES_EXPORTER === 'console'
      ? new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() })
      : new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: otlpTracesUrl(settings) }) });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.OTEL_SERVICE_NAME ?? options.service,
      ...(options.instanceId !== undefined && { 'service.instance.id': options.instanceId }),
    }),
    sampler: traceSampler(settings),
    spanProcessors: [processor],
  });
  return new OtelTracing(provider, `@sas/${options.service}`);
}

/** Where OTLP/HTTP trace exports go, as the spec derives it from the two endpoint variables. */
export function otlpTracesUrl(settings: Pick<TracingSettings, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'>): string {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = (settings.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  return `${base}/v1/traces`;
}

/** A shutdown step that flushes the tracing, or nothing when tracing is off. */
export function tracingClosables(tracing: Tracing | undefined): { name: string; close: () => Promise<void> }[] {
  return tracing ? [{ name: 'tracing', close: () => tracing.shutdown() }] : [];
}
