import { createTracing, type Tracing } from '@sas/runtime';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';

/** One finished span as a test reads it. */
export interface RecordedSpan {
  name: string;
  /** `internal`, `client`, `server`, `producer` or `consumer`. */
  kind: string;
  service: string;
  traceId: string;
  spanId: string;
  /** The parent's span id; undefined for a trace's root. */
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  /** Span ids this span links to. */
  links: string[];
  failed: boolean;
}

const KIND_NAMES = ['internal', 'server', 'client', 'producer', 'consumer'];

/**
 * Tracing that keeps every finished span in memory (OpenTelemetry's `InMemorySpanExporter`), for
 * tests of what is traced. Hand `tracing(service)` to each component; all share one exporter, so
 * `spans()` shows one order's trace across components.
 */
export class RecordingTracing {
  private readonly exporter = new InMemorySpanExporter();
  private readonly tracings: Tracing[] = [];

  /** A tracing for one component, its spans named as `service`. */
  tracing(service: string): Tracing {
    const tracing = createTracing(
      { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on' },
      { service, exporter: this.exporter },
    );
    if (!tracing) throw new Error('createTracing returned nothing although it was given an exporter');
    this.tracings.push(tracing);
    return tracing;
  }

  /** Every span finished so far, in the order they ended. */
  spans(): RecordedSpan[] {
    return this.exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      kind: KIND_NAMES[s.kind] ?? String(s.kind),
      service: String(s.resource.attributes['service.name']),
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId,
      attributes: { ...s.attributes },
      links: s.links.map((l) => l.context.spanId),
      failed: s.status.code === 2,
    }));
  }

  /** The one finished span with this name; throws naming what there is when there is not exactly one. */
  span(name: string): RecordedSpan {
    const found = this.spans().filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one span '${name}', found ${found.length}; spans: ${this.spans().map((s) => s.name).join(', ')}`);
    return found[0]!;
  }

  clear(): void {
    this.exporter.reset();
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.tracings.map((t) => t.shutdown()));
  }
}
