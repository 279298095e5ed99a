import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { allowedHostsGuard, hostNameOf } from './allowed-hosts';

/** GETs `path` from the server with the given `Host` header (fetch may not set it). */
function getWithHost(server: Server, path: string, host: string): Promise<{ status: number; body: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hostNameOf', () => {
  it('takes the name without the port, lowercased, IPv6 in brackets', () => {
    expect(hostNameOf('Dash.Example:4000')).toBe('dash.example');
    expect(hostNameOf('localhost')).toBe('localhost');
    expect(hostNameOf('[::1]:4000')).toBe('[::1]');
    expect(hostNameOf(undefined)).toBeUndefined();
  });
});

describe('a dashboard answers only to its own host names', () => {
  let server: Server;

  beforeAll(async () => {
    const app = express();
    app.use(allowedHostsGuard(['dashboard', 'SAS.example.com']));
    app.get('/readyz', (_req, res) => void res.json({ ready: true }));
    app.post('/api/bulk', (_req, res) => void res.json({ dryRun: true }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each(['localhost:4000', '127.0.0.1:4000', '[::1]:4000', 'localhost:8080', 'dashboard:4000', 'sas.example.com', '10.1.2.3:4000', '[fd00::7]:4000'])(
    'answers Host %s (a loopback name, a configured one, or an IP address)',
    async (host) => {
      expect((await getWithHost(server, '/readyz', host)).status).toBe(200);
    },
  );

  it('refuses a DNS-rebinding page (Host evil.example) with 421, saying which names it answers to and what to set', async () => {
    const answer = await getWithHost(server, '/readyz', 'evil.example:4000');
    expect(answer.status).toBe(421);
    expect(answer.body).toContain("does not answer to the host 'evil.example:4000'");
    expect(answer.body).toContain('localhost, 127.0.0.1, [::1], dashboard, sas.example.com');
    expect(answer.body).toContain('DASHBOARD_ALLOWED_HOSTS');
  });

  it('refuses a name that only starts like an allowed one (localhost.evil.example, 127.0.0.1.nip.io)', async () => {
    expect((await getWithHost(server, '/readyz', 'localhost.evil.example:4000')).status).toBe(421);
    expect((await getWithHost(server, '/readyz', '127.0.0.1.nip.io:4000')).status).toBe(421);
  });
});
