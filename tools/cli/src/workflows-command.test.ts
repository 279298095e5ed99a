import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderFulfilmentV1 } from '@sas/workflow';

// The built CLI, run as a user runs it: its exit code and output are the interface.
const CLI = join(__dirname, '..', 'dist', 'main.js');

describe('sas workflows check FILE', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sas-workflows-check-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  function file(content: unknown): string {
    const path = join(dir, 'workflows.json');
    writeFileSync(path, JSON.stringify(content));
    return path;
  }

  it('exits 0 and prints a line per workflow when every definition is valid', () => {
    const result = run('workflows', 'check', file([{ ...orderFulfilmentV1, version: 2 }]));
    expect(result).toEqual({
      status: 0,
      stdout:
        'ok order-fulfilment@2: 3 step(s) (reserve-inventory → charge-payment → create-shipment), threshold 3 then compensate, refusals compensate, parked at most 1800000 ms\n',
      stderr: '',
    });
  });

  it('exits 1 and prints each bad field with its path, then a count', () => {
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 2 ? { ...s, completeByMs: '5000' } : s));
    const path = file([{ ...orderFulfilmentV1, version: 2 }, { ...orderFulfilmentV1, name: 'other', steps }]);
    const result = run('workflows', 'check', path);
    expect(result).toEqual({
      status: 1,
      stdout: `workflows[1].steps[2].completeByMs: Expected number, received string\n${path}: 1 problem(s); the services would refuse to start with it\n`,
      stderr: '',
    });
  });

  it('exits 1 with a clear message when the file cannot be read or no file is given', () => {
    const missing = join(dir, 'missing.json');
    expect(run('workflows', 'check', missing)).toMatchObject({ status: 1, stderr: expect.stringMatching(new RegExp(`^sas: Cannot read workflows file '${missing}': ENOENT`)) });
    expect(run('workflows', 'check')).toMatchObject({ status: 1, stderr: "sas: workflows check needs a file: sas workflows check workflows.json (or --live for the services' WORKFLOWS_FILE)\n" });
  });
});
