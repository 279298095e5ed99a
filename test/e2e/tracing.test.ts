import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SystemFixture } from '../support/system-fixture';

// Every service as its own process, exporting OTLP/HTTP JSON to a collector stub in this test:
// each order must be one trace across submission, scheduler and the three agents.

/** One span as the collector stub received it. */
interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[] }> }>;
  }>;
}

function attributesOf(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue]));
}

/** A collector that accepts OTLP/HTTP JSON trace exports and keeps every span. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; bodies: string[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      bodies.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(raw) as OtlpExport;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const s of scope.spans ?? []) {
            spans.push({ service, name: s.name, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', attributes: attributesOf(s.attributes) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, bodies, server };
}

const APP_TRACE = '0af7651916cd43dd8448eb211c80319c';
const SERVICES = ['submission', 'scheduler', 'agent-inventory', 'agent-payment', 'agent-shipping'];

describe('tracing with every service as its own process', () => {
  let fx: SystemFixture | undefined;
  let collector: Awaited<ReturnType<typeof startCollector>>;

  beforeAll(async () => {
    collector = await startCollector();
    const otel = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
    fx = await SystemFixture.start('tracing', { schedulers: 1, supervisors: 1 }, { scheduler: otel, supervisor: otel, submission: otel, agent: otel });
  });
  afterAll(async () => {
    await fx?.stop();
    collector?.server.close();
  });

  it('exports one trace per order spanning submission, scheduler and every agent, continuing the application’s trace', async () => {
    const f = fx!;
    const ids = ['trace-0', 'trace-1', 'trace-2', 'trace-3'];
    await f.submit([...ids.map((id) => f.order(id)), f.order('trace-app', { traceparent: `00-${APP_TRACE}-b7ad6b7169203331-01` })]);
    const docs = await f.waitForStates([...ids, 'trace-app'], ['Processed'], 60_000);

    // Spans are exported in batches: wait until each order's last agent span has arrived.
    await f.stack.waitFor(
      () => [...ids, 'trace-app'].every((id) => collector.spans.some((s) => s.attributes['orderId'] === id && s.name === 'shipping.create attempt 3')),
      { timeoutMs: 30_000, description: 'the shipping attempt span of every order at the collector' },
    );
    expect(collector.bodies.every((b) => b === 'POST /v1/traces application/json')).toBe(true);

    const traceIds = new Set<string>();
    for (const doc of docs) {
      const spans = collector.spans.filter((s) => s.attributes['orderId'] === doc.orderId);
      const traces = new Set(spans.map((s) => s.traceId));
      expect(traces.size).toBe(1);
      const [traceId] = [...traces];
      expect(doc.traceparent?.split('-')[1]).toBe(traceId);
      traceIds.add(traceId!);
      // Every span of that trace, attributed or not (tries carry no orderId), comes from these services.
      const inTrace = collector.spans.filter((s) => s.traceId === traceId);
      expect([...new Set(inTrace.map((s) => s.service))].sort()).toEqual([...SERVICES].sort());
      expect(inTrace.map((s) => s.name)).toEqual(expect.arrayContaining([
        'submit', 'claim', 'dispatch reserve-inventory', 'inventory.reserve attempt 1', 'inventory.reserve try 1', 'apply reply',
        'payment.charge attempt 2', 'shipping.create attempt 3',
      ]));
    }
    expect(traceIds.size).toBe(docs.length);
    expect(traceIds.has(APP_TRACE)).toBe(true);
  });
});
