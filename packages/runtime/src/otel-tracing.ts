import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TracerProvider } from '@opentelemetry/sdk-trace';
import type { StartSpanOptions, TraceSpan, TraceSpanKind, Tracing, TraceAttributes } from './tracing';

const propagator = new W3CTraceContextPropagator();

const KINDS: Record<TraceSpanKind, SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/**
 * {@link Tracing} over an OpenTelemetry SDK tracer provider. Contexts are passed explicitly (a
 * message's `traceparent`, a span) rather than through a global context manager: the work of one
 * order hops across queues and processes, where no ambient context survives anyway, and nothing
 * is registered globally, so two services (or two tests) in one process keep their own spans.
 */
export class OtelTracing implements Tracing {
  private readonly tracer: Tracer;
  private stopping: Promise<void> | undefined;

  constructor(private readonly provider: TracerProvider, scope = '@sas/runtime') {
    this.tracer = provider.getTracer(scope);
  }

  startSpan(name: string, options: StartSpanOptions = {}): TraceSpan {
    const links: Link[] = [];
    for (const link of options.links ?? []) {
      const context = link === undefined ? undefined : trace.getSpanContext(contextOf(link));
      if (context) links.push({ context });
    }
    const span = this.tracer.startSpan(
      name,
      { kind: KINDS[options.kind ?? 'internal'], ...(options.attributes && { attributes: options.attributes }), ...(links.length > 0 && { links }) },
      contextOf(options.parent),
    );
    return new OtelSpan(span);
  }

  shutdown(): Promise<void> {
    this.stopping ??= this.provider.shutdown();
    return this.stopping;
  }
}

class OtelSpan implements TraceSpan {
  private ended = false;
  private carried: string | undefined;

  constructor(readonly span: Span) {}

  get traceparent(): string {
    if (this.carried === undefined) {
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, defaultTextMapSetter);
      this.carried = carrier['traceparent'] ?? '';
    }
    return this.carried;
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  setAttributes(attributes: TraceAttributes): void {
    this.span.setAttributes(attributes);
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (error !== undefined) {
      const message = error instanceof Error ? error.message : String(error);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message });
      if (error instanceof Error) this.span.recordException(error);
    }
    this.span.end();
  }
}

/** The context a parent names; the root context (a new trace) when there is none or it is malformed. */
function contextOf(parent: string | TraceSpan | undefined): Context {
  if (parent === undefined) return ROOT_CONTEXT;
  if (parent instanceof OtelSpan) return trace.setSpan(ROOT_CONTEXT, parent.span);
  const traceparent = typeof parent === 'string' ? parent : parent.traceparent;
  return propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
}
