import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from '@sas/stack';
import { type LocalRegistry, applicationEnv, startLocalRegistry } from '../support/local-registry';
import { type DocBlock, sampleLinePattern } from './doc-blocks';

/**
 * Follows a docs page's blocks in a folder as a reader would: `file=NAME` blocks are written,
 * `sh` blocks run with bash (`background until="TEXT"`: started and waited for; `expect="TEXT"`:
 * TEXT must be in the output, `retry` reruns it for up to 60 s until it is), `env-from-sas-up`
 * takes the export line `sas up` really printed (the page shows an example of it), `text` blocks are
 * sample output whose lines must match what was printed (numbers and `...` stand for any value).
 * Any other block fails: a page cannot hold a block nothing checks.
 */
export class DocFollower {
  private readonly foreground: string[] = [];
  private env: NodeJS.ProcessEnv = {};
  private readonly background: ManagedProcess[] = [];

  constructor(
    private readonly page: string,
    private readonly dir: string,
  ) {}

  /** Every line the page's commands printed so far: the finished ones', then each background one's. */
  get printed(): string[] {
    return [...this.foreground, ...this.background.flatMap((p) => p.lines.map((l) => l.text))];
  }

  async follow(block: DocBlock): Promise<void> {
    const where = `docs/${this.page}:${block.line} (${[block.lang, ...Object.keys(block.attrs)].join(' ')})`;
    if (typeof block.attrs['file'] === 'string') {
      writeFileSync(join(this.dir, block.attrs['file']), block.code);
      return;
    }
    if (block.lang === 'text') {
      const printed = this.printed;
      const missing = block.code.split('\n').filter((l) => l.trim() !== '' && !printed.some((p) => sampleLinePattern(l).test(p)));
      if (missing.length > 0) throw new Error(`${where}: sample lines nothing printed:\n${missing.join('\n')}\n--- printed last:\n${printed.slice(-40).join('\n')}`);
      return;
    }
    if (block.lang !== 'sh') throw new Error(`${where}: the doc test does not know how to check this block; give it file=NAME, or make it sh or text`);
    if (block.attrs['env-from-sas-up']) return this.takeExports(block, where);
    if (block.attrs['background']) return this.startBackground(block, where);
    const deadline = Date.now() + (block.attrs['retry'] ? 60_000 : 0);
    for (;;) {
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', block.code], { cwd: this.dir, encoding: 'utf8', timeout: 300_000, env: applicationEnv(this.env) });
      const output = `${result.stdout}${result.stderr}`;
      const expected = block.attrs['expect'];
      const ok = result.status === 0 && (typeof expected !== 'string' || result.stdout.includes(expected));
      if (ok) {
        this.foreground.push(...result.stdout.split('\n'));
        return;
      }
      if (Date.now() > deadline) throw new Error(`${where} exited ${String(result.status)}${typeof expected === 'string' ? `, expected '${expected}' in its output` : ''}:\n${output}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** Ctrl-C for every background command, newest first, then a stop for any still running. */
  async stop(): Promise<void> {
    for (const proc of [...this.background].reverse()) await proc.kill('SIGINT').catch(() => undefined);
    for (const proc of this.background) await proc.stop(20_000);
  }

  private takeExports(block: DocBlock, where: string): void {
    const line = this.printed.find((l) => l.trim().startsWith('export REDIS_URL='));
    if (!line) throw new Error(`${where}: sas up printed no export line`);
    const names = (text: string): string[] => [...text.matchAll(/([A-Z_]+)=/g)].map((m) => m[1] as string);
    if (names(block.code).join() !== names(line).join()) throw new Error(`${where}: the page exports ${names(block.code).join(', ')}; sas up printed ${names(line).join(', ')}`);
    this.env = Object.fromEntries([...line.matchAll(/([A-Z_]+)='?([^' ]+)'?/g)].map((m) => [m[1] as string, m[2] as string]));
  }

  private async startBackground(block: DocBlock, where: string): Promise<void> {
    const until = String(block.attrs['until']);
    const proc = new ManagedProcess({
      name: `${this.page}-${block.line}`,
      command: 'bash',
      args: ['-c', block.code],
      cwd: this.dir,
      env: applicationEnv(this.env),
      logFile: join(this.dir, `block-${block.line}.log`),
      ownProcessGroup: true,
    });
    this.background.push(proc);
    await proc.start();
    await proc.waitForLine((l) => l.text.includes(until), 180_000, `'${until}' (${where})`);
  }
}

/**
 * The set-up every page test shares, registered as the test file's `beforeAll`/`afterAll`: a local
 * registry the workspace is published to, an empty folder outside the workspace whose `.npmrc`
 * takes the `@sas` scope from it (the one difference from a newcomer's machine), and a follower of
 * `page` in that folder; all stopped and removed after the file's tests.
 *
 * @returns the follower, once `beforeAll` has run
 */
export function followPageInEmptyFolder(page: string): () => DocFollower {
  let registry: LocalRegistry | undefined;
  let dir: string | undefined;
  let reader: DocFollower | undefined;
  beforeAll(async () => {
    registry = await startLocalRegistry();
    dir = mkdtempSync(join(tmpdir(), `sas-doc-${page.replace(/\W+/g, '-')}`));
    writeFileSync(join(dir, '.npmrc'), `${registry.scopeLine}\n`);
    reader = new DocFollower(page, dir);
  }, 600_000);
  afterAll(async () => {
    await reader?.stop();
    await registry?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  return () => {
    if (!reader) throw new Error(`the follower of docs/${page} is not set up yet: call it inside a test`);
    return reader;
  };
}
