/** Attribute values a span carries (OpenTelemetry's primitive attribute values). */
export type TraceAttributes = Record<string, string | number | boolean>;

/** What kind of work a span is, as OpenTelemetry names it. */
export type TraceSpanKind = 'internal' | 'client' | 'server' | 'producer' | 'consumer';

/** Options of {@link Tracing.startSpan}. */
export interface StartSpanOptions {
  /**
   * The parent: a W3C `traceparent` carried by a message (or stored with a process), or a span of
   * this process. Absent or malformed, the span starts a new trace: a bad trace context never
   * rejects the work it came with.
   */
  parent?: string | TraceSpan | undefined;
  /** @default 'internal' */
  kind?: TraceSpanKind;
  attributes?: TraceAttributes;
  /** `traceparent`s of spans this one follows from without being their child (a reply's sender). */
  links?: readonly (string | undefined)[];
}

/** One span, started by {@link Tracing.startSpan}. */
export interface TraceSpan {
  /** This span's W3C trace context, to carry in a message or an HTTP header. */
  readonly traceparent: string;
  readonly traceId: string;
  setAttributes(attributes: TraceAttributes): void;
  /** Ends the span; an error marks it failed and records its message. Ending twice is a no-op. */
  end(error?: unknown): void;
}

/**
 * The tracing seam components receive (optional in their deps): when a service runs without
 * tracing it passes none, and the components skip every tracing step, so an untraced step costs
 * one `undefined` check. Built by {@link createTracing}; a test builds one over an in-memory exporter.
 */
export interface Tracing {
  startSpan(name: string, options?: StartSpanOptions): TraceSpan;
  /** Exports what is buffered and stops; call it last at shutdown. Idempotent. */
  shutdown(): Promise<void>;
}
