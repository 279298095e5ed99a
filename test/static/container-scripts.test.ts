import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '@sas/testkit';
import { ROOT, runnableServices } from './workspace-facts';

/**
 * The two scripts the image runs, run here as real processes against the built workspace:
 * deploy/docker-entrypoint.sh (APP_ROOT points it at the checkout instead of /app) and
 * deploy/healthcheck.js. Needs `tsc -b` first, like every test that spawns a service.
 */

const ENTRYPOINT = join(ROOT, 'deploy', 'docker-entrypoint.sh');
const HEALTHCHECK = join(ROOT, 'deploy', 'healthcheck.js');

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children: ChildProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  // Each child leads its own process group, so this also ends a node a broken script left behind.
  for (const child of children.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  }
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** Starts `command` with only the given environment (plus PATH), collecting its output. */
function start(command: string, args: string[], env: Record<string, string>): { child: ChildProcess; output: Finished; exited: Promise<Finished> } {
  const child = spawn(command, args, {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  const output: Finished = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout?.on('data', (b: Buffer) => (output.stdout += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output.stderr += b.toString()));
  const exited = new Promise<Finished>((resolve) =>
    child.once('close', (code, signal) => resolve(Object.assign(output, { code, signal }))),
  );
  return { child, output, exited };
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Finished> {
  return start(command, args, env).exited;
}

/** An HTTP server on loopback answering with `handler`; returns its port and the paths asked for. */
async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, paths };
}

describe('deploy/docker-entrypoint.sh', () => {
  it('execs the service named by SERVICE, so SIGTERM reaches node and it shuts down cleanly', async () => {
    const sim = start('sh', [ENTRYPOINT], { APP_ROOT: ROOT, SERVICE: 'remote-sim', PORT: '0', HOST: '127.0.0.1' });
    const line = await waitFor(() => sim.output.stdout.split('\n').find((l) => l.includes('"msg":"listening"')), {
      timeoutMs: 20_000,
      description: `remote-sim to log 'listening' (stderr so far: ${sim.output.stderr})`,
    });
    const { port } = JSON.parse(line) as { port: number };

    // The image's health check passes against the real service (remote-sim answers /healthz on PORT).
    const health = await run('node', [HEALTHCHECK], { PORT: String(port), HOST: '0.0.0.0' });
    expect({ code: health.code, stderr: health.stderr }).toEqual({ code: 0, stderr: '' });

    sim.child.kill('SIGTERM');
    // Wait for the process the signal went to, not for its pipes: had a shell stayed in between,
    // the signal would have killed the shell and left node running with the pipes open.
    await waitFor(() => sim.child.exitCode !== null || sim.child.signalCode !== null, {
      timeoutMs: 15_000,
      description: 'the entrypoint process to exit after SIGTERM',
    });
    expect({ code: sim.child.exitCode, signal: sim.child.signalCode }).toEqual({ code: 0, signal: null });
    const done = await sim.exited;
    expect(done.stdout).toContain('shutdown complete');
  });

  it('refuses to start without SERVICE and lists the services it could run', async () => {
    const result = await run('sh', [ENTRYPOINT], { APP_ROOT: ROOT });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('SERVICE is not set; build with --build-arg SERVICE=<dir> or run with -e SERVICE=<dir>');
    expect(result.stderr).toContain(`one of: ${runnableServices().join(' ')}`);
  });

  it('names the missing file when SERVICE is not a built service', async () => {
    const result = await run('sh', [ENTRYPOINT], { APP_ROOT: ROOT, SERVICE: 'schedular' });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(`SERVICE='schedular' has no ${ROOT}/services/schedular/dist/main.js; set SERVICE to one of: ${runnableServices().join(' ')}`);
  });

  it('runs the given command instead, from the application root', async () => {
    const result = await run('sh', [ENTRYPOINT, 'node', '-e', 'process.stdout.write(process.cwd())'], { APP_ROOT: ROOT, SERVICE: 'scheduler' });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: ROOT });
  });
});

describe('deploy/healthcheck.js', () => {
  it('passes when /healthz on PROBE_PORT answers 200', async () => {
    const probe = await httpServer((_req, res) => res.writeHead(200).end('ok\n'));
    const result = await run('node', [HEALTHCHECK], { PROBE_PORT: String(probe.port), PORT: '1' });
    expect(result.code).toBe(0);
    expect(probe.paths).toEqual(['/healthz']);
  });

  it('fails and says what it got when /healthz answers an error status', async () => {
    const probe = await httpServer((_req, res) => res.writeHead(503).end('not ready\n'));
    const result = await run('node', [HEALTHCHECK], { PROBE_PORT: String(probe.port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`healthcheck: http://127.0.0.1:${probe.port}/healthz answered 503\n`);
  });

  it('fails when nothing listens on the probe port', async () => {
    const probe = await httpServer((_req, res) => res.end());
    const server = servers.pop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const result = await run('node', [HEALTHCHECK], { PROBE_PORT: String(probe.port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^healthcheck: http://127\\.0\\.0\\.1:${probe.port}/healthz unreachable: .*ECONNREFUSED`));
  });

  it('fails when /healthz does not answer within its timeout', async () => {
    const probe = await httpServer(() => undefined); // never answers
    const result = await run('node', [HEALTHCHECK], { PROBE_PORT: String(probe.port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unreachable: .*(timeout|aborted)/i);
    for (const s of servers) s.closeAllConnections();
  });

  it('uses PORT when the probe server is disabled, as for remote-sim', async () => {
    const sim = await httpServer((_req, res) => res.writeHead(200).end('{}'));
    const result = await run('node', [HEALTHCHECK], { PROBE_PORT: '-1', PORT: String(sim.port) });
    expect(result.code).toBe(0);
    expect(sim.paths).toEqual(['/healthz']);
  });

  it('reports healthy and says why when there is no fixed port to ask', async () => {
    const result = await run('node', [HEALTHCHECK], { PROBE_PORT: '0' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('healthcheck: neither PROBE_PORT nor PORT is a fixed port; set PROBE_PORT to check /healthz\n');
  });
});
