import type { Server } from 'node:http';
import { Gauge, Registry } from 'prom-client';
import { ProbeServer } from './probe-server';

describe('the probe server', () => {
  const registry = new Registry();
  let failing = false;
  new Gauge({
    name: 'sas_test_value',
    help: 'A value the test sets',
    registers: [registry],
    collect() {
      if (failing) throw new Error('store unreachable');
      this.set(7);
    },
  });
  let ready = false;
  const probe = new ProbeServer({ ready: () => ready, registry });
  let base = '';

  beforeAll(async () => {
    base = `http://127.0.0.1:${await probe.start(0, '127.0.0.1')}`;
  });
  afterAll(() => probe.close());

  it('answers /healthz always and /readyz as the service says', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it("renders the service's registry at /metrics in the text format", async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(registry.contentType);
    expect(await res.text()).toBe('# HELP sas_test_value A value the test sets\n# TYPE sas_test_value gauge\nsas_test_value 7\n');
  });

  it('fails only the scrape, with the reason, when a collector throws', async () => {
    failing = true;
    try {
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(500);
      expect(await res.text()).toBe('metrics unavailable: store unreachable\n');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      failing = false;
    }
  });

  it('listens on loopback only unless given an address (PROBE_HOST)', async () => {
    const own = new ProbeServer({ ready: () => true, registry });
    try {
      await own.start(0);
      expect((own as unknown as { server: Server }).server.address()).toMatchObject({ address: '127.0.0.1' });
    } finally {
      await own.close();
    }
  });
});
