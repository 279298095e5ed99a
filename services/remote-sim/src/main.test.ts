import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const mainJs = join(__dirname, '..', 'dist', 'main.js');

function launch(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [mainJs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function firstLogLine(child: ChildProcess, msg: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    if (child.stdout === null) return reject(new Error('child has no stdout'));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry['msg'] === msg) resolve(entry);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before logging '${msg}'`)));
  });
}

describe('remote-sim main (built dist)', () => {
  it('logs the bound port when PORT=0, serves, and exits 0 on SIGTERM', async () => {
    const child = launch({ PORT: '0', LOG_LEVEL: 'info', SEED: '5' });
    const exited = exitOf(child);
    try {
      const listening = await firstLogLine(child, 'listening');
      expect(listening).toMatchObject({ service: 'remote-sim', port: expect.any(Number), seed: 5 });
      expect(listening['url']).toBe(`http://127.0.0.1:${String(listening['port'])}`);
      const health = await fetch(`${String(listening['url'])}/healthz`);
      expect(health.status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses a bad PORT, naming the variable, and exits 1', async () => {
    const child = launch({ PORT: 'eighty' });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(stderr).toContain("PORT: Expected number, received nan (got 'eighty')");
  });
});
