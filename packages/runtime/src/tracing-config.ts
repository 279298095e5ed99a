import { z } from 'zod';

/**
 * The standard OpenTelemetry variables a service reads (spread into {@link CommonConfig}). Tracing
 * is off unless `OTEL_TRACES_EXPORTER` names an exporter.
 */
export const TracingConfig = {
  /** `otlp` exports over OTLP/HTTP, `console` prints spans to stdout, `none` (the default) traces nothing. */
  OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp', 'console']).default('none'),
  /** The `service.name` resource attribute; the service's own name (`scheduler`, `agent-payment`...) when unset. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** Base URL of the collector; traces go to `<it>/v1/traces`. @default http://localhost:4318 */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** Full URL for traces; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** Only OTLP over HTTP with JSON bodies is built in (every OTLP/HTTP collector accepts it). */
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/json'], { errorMap: () => ({ message: "only 'http/json' is supported; unset it or set it to http/json" }) })
    .default('http/json'),
  /** Which traces are recorded; the spec's default follows the caller's decision, else records all. */
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on'),
  /** The ratio of the `*traceidratio` samplers, in [0, 1]. @default 1 */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
};
/** The parsed {@link TracingConfig} fields. */
export type TracingSettings = z.infer<z.ZodObject<typeof TracingConfig>>;
