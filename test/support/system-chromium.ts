import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from '@sas/stack';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium, which `node scripts/run.mjs test` (and `… browser`) installs when missing. */
const CHROMIUM_PATH = process.env['SAS_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * Flags that make chromium start headless in a container as root, without reaching out to the
 * network on its own (updates, sync, field trials) and without a GPU.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's chromium driven by playwright-core: no browser is downloaded, and each launch gets a
 * fresh profile (`--user-data-dir`) that `close()` removes. Screenshots go to
 * `test-artifacts/<name>/` at the workspace root (gitignored), kept after the run for a reader.
 *
 * @example
 * ```ts
 * const browser = await SystemChromium.launch('dashboard-browser');
 * await browser.page.goto(url);
 * await browser.screenshot('signed-in');
 * await browser.close();
 * ```
 */
export class SystemChromium {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
    private readonly profileDir: string,
    /** Where {@link screenshot} writes. */
    readonly artifactsDir: string,
  ) {}

  static async launch(name: string, options: { timeoutMs?: number } = {}): Promise<SystemChromium> {
    if (!existsSync(CHROMIUM_PATH)) {
      throw new Error(
        `${CHROMIUM_PATH} is missing: the browser test drives Debian's chromium. Run \`node scripts/run.mjs browser\` as root (it runs apt-get install -y chromium), or set SAS_CHROMIUM to a chromium binary`,
      );
    }
    const artifactsDir = join(findWorkspaceRoot(), 'test-artifacts', name);
    mkdirSync(artifactsDir, { recursive: true });
    const profileDir = mkdtempSync(join(tmpdir(), 'sas-chromium-'));
    try {
      const context = await chromium.launchPersistentContext(profileDir, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: FLAGS,
        viewport: { width: 1400, height: 1000 },
      });
      context.setDefaultTimeout(options.timeoutMs ?? 20_000);
      const page = context.pages()[0] ?? (await context.newPage());
      return new SystemChromium(context, page, profileDir, artifactsDir);
    } catch (e) {
      rmSync(profileDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** A full-page PNG in {@link artifactsDir}; returns its path. */
  async screenshot(name: string): Promise<string> {
    const path = join(this.artifactsDir, `${name}.png`);
    await this.page.screenshot({ path, fullPage: true });
    return path;
  }

  /** Whether the browser holds a cookie of this name for the page's site. */
  async hasCookie(name: string): Promise<boolean> {
    return (await this.context.cookies()).some((c) => c.name === name);
  }

  /** Drops every cookie, as when a session ends behind the page's back. */
  clearCookies(): Promise<void> {
    return this.context.clearCookies();
  }

  /** Closes the browser and removes its profile; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.context
      .close()
      .catch(() => undefined)
      .then(() => rmSync(this.profileDir, { recursive: true, force: true }));
    return this.closing;
  }
}
