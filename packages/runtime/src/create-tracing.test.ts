import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { ConfigError } from './errors/config-error';
import { createTracing, otlpTracesUrl } from './create-tracing';
import { loadConfig } from './load-config';
import { traceSampler } from './trace-sampler';
import { TracingConfig } from './tracing-config';

const Schema = z.object(TracingConfig);

describe('tracing configuration from the standard OTEL_* variables', () => {
  it('is off by default: no tracing object, so components skip every tracing step', () => {
    const settings = loadConfig(Schema, {});
    expect(settings).toMatchObject({ OTEL_TRACES_EXPORTER: 'none', OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
    expect(createTracing(settings, { service: 'scheduler' })).toBeUndefined();
  });

  it('turns on with OTEL_TRACES_EXPORTER=otlp, sending to <endpoint>/v1/traces', async () => {
    const settings = loadConfig(Schema, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    expect(otlpTracesUrl(settings)).toBe('http://collector:4318/v1/traces');
    const tracing = createTracing(settings, { service: 'scheduler' });
    expect(tracing).toBeDefined();
    await tracing?.shutdown();
  });

  it('lets OTEL_EXPORTER_OTLP_TRACES_ENDPOINT win, and defaults to the local collector', () => {
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces' })).toBe('http://b:9999/traces');
    expect(otlpTracesUrl({})).toBe('http://localhost:4318/v1/traces');
  });

  it('refuses an exporter, protocol or sampler it does not have, naming the variable', () => {
    expect(() => loadConfig(Schema, { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(ConfigError);
    expect(() => loadConfig(Schema, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: only 'http\/json' is supported/);
    expect(() => loadConfig(Schema, { OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });

  it('builds the sampler the spec names', () => {
    expect(traceSampler({ OTEL_TRACES_SAMPLER: 'always_off' }).toString()).toBe('AlwaysOffSampler');
    expect(traceSampler({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 0.25 }).toString()).toMatch(/ParentBased\{root=TraceIdRatioBased\{0\.25\}/);
  });

  it('exports the spans still batched when it shuts down', async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        received.push(`${req.url} ${raw}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // In a plain node process: the OTLP exporter loads its transport with a dynamic import, which
      // jest's module sandbox refuses. The batch's own timer (5 s) cannot fire before the process
      // exits right after shutdown, so only shutdown can have sent the span.
      const script = [
        "const { createTracing, loadConfig, CommonConfig } = require('./dist');",
        "const { z } = require('zod');",
        'const tracing = createTracing(loadConfig(z.object(CommonConfig), process.env), { service: "flush-test" });',
        "tracing.startSpan('before shutdown').end();",
        "tracing.shutdown().then(() => process.stdout.write('shut down'));",
      ].join('\n');
      const out = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), env: { ...process.env, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout),
        );
      });
      expect(out).toBe('shut down');
      expect(received).toHaveLength(1);
      expect(received[0]).toMatch(/^\/v1\/traces .*"name":"before shutdown"/);
      expect(received[0]).toContain('"stringValue":"flush-test"');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
