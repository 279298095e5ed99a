import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The `<style>` elements bull-board's scripts render (in `@bull-board/ui` 9.10.1): the Redis logo's
 * colours, and base-ui's scrollbar rule when a menu opens. Their text is fixed in its bundle, so
 * hashes allow them; a new one after an upgrade shows as a policy violation in the browser test of
 * `/queues` (test/e2e/security.test.ts).
 */
const BULL_BOARD_SCRIPT_STYLES: readonly string[] = [
  '\n      .rds-b1 {fill: #ae7d83}\n      .rds-b2 {fill: #c29ea2}\n      .rds-b3 {fill: #e2d0d2}\n\n      .dark-mode .rds-b1 {fill: #a26169}\n      .dark-mode .rds-b2 {fill: #7b4a50}\n      .dark-mode .rds-b3 {fill: #514042}\n    ',
  '.base-ui-disable-scrollbar{scrollbar-width:none}.base-ui-disable-scrollbar::-webkit-scrollbar{display:none}',
];

/**
 * The `style-src` sources, beside `'self'`, that bull-board's own page needs: a sha256 hash of each
 * inline `<style>` block and `style="…"` attribute in its HTML template (its "Loading" placeholder)
 * and of each of {@link BULL_BOARD_SCRIPT_STYLES}, and `'unsafe-hashes'`, which lets those exact attribute values apply and no others. The rest of
 * bull-board's styles are CSS files from this origin (`'self'`) or set by its scripts through the
 * CSSOM, which a policy does not restrict; so the board needs no `'unsafe-inline'`, and a style
 * injected into its page is refused like one injected into ours.
 *
 * Read from the installed `@bull-board/ui` (found as `@bull-board/api` finds it), so an upgrade
 * that changes the template changes the hashes with it.
 */
export function bullBoardStyleSources(): string[] {
  const fromApi = createRequire(require.resolve('@bull-board/api'));
  const template = join(dirname(fromApi.resolve('@bull-board/ui/package.json')), 'dist', 'index.ejs');
  return [...inlineStyleSources(readFileSync(template, 'utf8')), ...BULL_BOARD_SCRIPT_STYLES.map(sha256Source)];
}

/** The hash sources that allow exactly the inline styles of `html` (see {@link bullBoardStyleSources}). */
function inlineStyleSources(html: string): string[] {
  const blocks = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1] ?? '');
  const attributes = [...html.matchAll(/\sstyle=(?:"([^"]*)"|'([^']*)')/gi)].map((m) => m[1] ?? m[2] ?? '');
  const hashes = [...new Set([...blocks, ...attributes].map(sha256Source))];
  return attributes.length > 0 ? [...hashes, "'unsafe-hashes'"] : hashes;
}

/** A CSP hash source: `'sha256-<base64 of SHA-256(text)>'`. */
export function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}
