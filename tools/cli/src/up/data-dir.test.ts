import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDir, DataDirBusy, cmdlineOf, stopOrphans } from './data-dir';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sas-data-dir-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A long-running child in its own process group, as sas up starts its services. */
function sleeper(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { detached: true, stdio: 'ignore' });
  child.unref();
  return new Promise((resolve) => child.once('spawn', () => resolve(child.pid as number)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('DataDir', () => {
  it('lays out redis/, mongo/ and logs/, and a new folder holds no state yet', () => {
    const data = DataDir.open(join(root, 'd'));
    expect([data.redisDir, data.mongoDir, data.logDir]).toEqual([join(root, 'd', 'redis'), join(root, 'd', 'mongo'), join(root, 'd', 'logs')]);
    expect(data.hasState).toBe(false);
    data.release();
  });

  it('lets the process that holds the lock open the folder again', () => {
    const dir = join(root, 'd');
    DataDir.open(dir);
    writeFileSync(join(dir, 'sas-up.lock'), `${process.pid}\n`);
    expect(() => DataDir.open(dir)).not.toThrow(); // its own pid: the same process may reopen
  });

  it('refuses a folder whose lock names another live sas up', async () => {
    const dir = join(root, 'd');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)', 'up'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    try {
      DataDir.open(dir).release();
      writeFileSync(join(dir, 'sas-up.lock'), `${String(child.pid)}\n`);
      expect(() => DataDir.open(dir)).toThrow(DataDirBusy);
      expect(() => DataDir.open(dir)).toThrow(`Another sas up (pid ${String(child.pid)}) is running on ${dir}`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over a lock whose sas up is gone (killed with kill -9)', () => {
    const dir = join(root, 'd');
    DataDir.open(dir);
    writeFileSync(join(dir, 'sas-up.lock'), '999999999\n');
    expect(() => DataDir.open(dir)).not.toThrow();
    expect(readFileSync(join(dir, 'sas-up.lock'), 'utf8').trim()).toBe(String(process.pid));
  });

  it('keeps the ports for the next run, and finds the children a killed sas up left running, which stopOrphans stops', async () => {
    const dir = join(root, 'd');
    const first = DataDir.open(dir);
    const orphan = await sleeper();
    first.recordPorts({ redis: 6390, mongo: 27090 });
    first.recordChildren([{ name: 'core-1', pid: orphan, tier: 0 }]);
    // sas up dies here without release(): its lock and its record stay.
    writeFileSync(join(dir, 'sas-up.lock'), '999999999\n');
    const second = DataDir.open(dir);
    expect(second.previous?.ports).toEqual({ redis: 6390, mongo: 27090 });
    expect(second.orphans().map((o) => o.pid)).toEqual([orphan]);
    await stopOrphans(second.orphans(), (ms) => new Promise((r) => setTimeout(r, ms)));
    expect(alive(orphan)).toBe(false);
    second.release();
  });

  it('does not take a process that got a recorded pid but runs another command line for an orphan', async () => {
    const dir = join(root, 'd');
    const first = DataDir.open(dir);
    const other = await sleeper();
    try {
      first.recordChildren([{ name: 'core-1', pid: other, tier: 0 }]);
      const record = JSON.parse(readFileSync(join(dir, 'sas-up.json'), 'utf8')) as { children: { cmdline: string }[] };
      expect(record.children[0]?.cmdline).toBe(cmdlineOf(other));
      record.children[0]!.cmdline = 'node /somewhere/else.js';
      writeFileSync(join(dir, 'sas-up.json'), JSON.stringify(record));
      writeFileSync(join(dir, 'sas-up.lock'), '999999999\n');
      expect(DataDir.open(dir).orphans()).toEqual([]);
    } finally {
      process.kill(other, 'SIGKILL');
    }
  });
});
