import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isYamlMap, parseYaml, type YamlMap, type YamlValue } from './yaml-document';

/**
 * What the deployment files must agree with, read from the workspace itself (sources as text,
 * never a hand-kept list), so a renamed service, a new config variable or a new package shows
 * up as a failing check on the deployment files.
 */

/** The repository root. */
export const ROOT = resolve(__dirname, '..', '..');

/** Reads a file under the root as UTF-8. */
export function readText(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Reads a single-document YAML file under the root; invalid YAML throws, naming the file and line. */
export function readYaml(path: string): YamlValue {
  return parseYaml(readText(path), path);
}

/** Directory names under services/ that have a `src/main.ts`, i.e. something a container can run. */
export function runnableServices(): string[] {
  return readdirSync(join(ROOT, 'services'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'services', d.name, 'src', 'main.ts')))
    .map((d) => d.name)
    .sort();
}

/** Every workspace package directory (`packages/x`, ...), from the globs in pnpm-workspace.yaml. */
export function workspacePackageDirs(): string[] {
  const workspace = readYaml('pnpm-workspace.yaml');
  const globs = isYamlMap(workspace) && Array.isArray(workspace['packages']) ? workspace['packages'] : [];
  return globs
    .flatMap((glob) => {
      const match = typeof glob === 'string' ? /^([\w.-]+)\/\*$/.exec(glob) : null;
      if (!match?.[1]) throw new Error(`pnpm-workspace.yaml glob '${String(glob)}' is not 'dir/*'; teach workspacePackageDirs to expand it`);
      const parent = match[1];
      return readdirSync(join(ROOT, parent), { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(ROOT, parent, d.name, 'package.json')))
        .map((d) => `${parent}/${d.name}`);
    })
    .sort();
}

const ENV_KEY = /^\s*([A-Z][A-Z0-9_]*)\s*:/gm;

function keysIn(source: string): string[] {
  return [...source.matchAll(ENV_KEY)].map((m) => m[1] ?? '');
}

/** The variables of `CommonConfig` (packages/runtime/src/config-fields.ts). */
export function commonConfigKeys(): Set<string> {
  const source = readText('packages/runtime/src/config-fields.ts');
  // CommonConfig spreads the connections' liveness bounds (packages/runtime/src/liveness-config.ts).
  const liveness = source.includes('...LivenessConfig') ? keysIn(readText('packages/runtime/src/liveness-config.ts')) : [];
  return new Set([...keysIn(source), ...liveness]);
}

/** The variables every `@sas/agent` process reads (packages/agent/src/agent-config.ts, which spreads CommonConfig). */
export function agentConfigKeys(): Set<string> {
  return new Set([...keysIn(readText('packages/agent/src/agent-config.ts')), ...commonConfigKeys()]);
}

/**
 * The environment variables a service's zod config declares: every `NAME:` key in its
 * `src/*config*.ts` files, plus CommonConfig's when it spreads `...CommonConfig` and the agent library's when it spreads
 * `...AgentConfigFields`. Crude (it reads
 * text) but it catches a typo or a variable the service has never heard of.
 */
export function declaredEnv(service: string): Set<string> {
  const dir = join(ROOT, 'services', service, 'src');
  const files = readdirSync(dir).filter((f) => /config.*\.ts$/.test(f) && !f.endsWith('.test.ts'));
  if (files.length === 0) throw new Error(`services/${service}/src has no *config*.ts; the env check cannot know what it reads`);
  const keys = new Set<string>();
  for (const file of files) {
    const source = readFileSync(join(dir, file), 'utf8');
    keysIn(source).forEach((k) => keys.add(k));
    if (source.includes('...CommonConfig')) commonConfigKeys().forEach((k) => keys.add(k));
    if (source.includes('...AgentConfigFields')) agentConfigKeys().forEach((k) => keys.add(k));
  }
  return keys;
}

/**
 * True when the service answers `/readyz`: it uses the runtime's ProbeServer, routes `/readyz`
 * itself, or runs through `runAgent` of `@sas/agent` (which serves the probes). remote-sim only has `/healthz`.
 */
export function servesReadyz(service: string): boolean {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [join(dir, d.name)] : [],
    );
  return sources(join(ROOT, 'services', service, 'src')).some((file) => /ProbeServer|\/readyz|runAgent\(/.test(readFileSync(file, 'utf8')));
}

/** The remote services remote-sim simulates (its `remoteServiceNames`). */
export function remoteServiceNames(): string[] {
  const source = readText('services/remote-sim/src/remote-operations.ts');
  const list = /remoteServiceNames[^=]*=\s*\[([^\]]*)\]/.exec(source)?.[1];
  if (list === undefined) throw new Error('remoteServiceNames not found in services/remote-sim/src/remote-operations.ts');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? '');
}

/** The default shutdown timeout of `installShutdown` in ms; grace periods must outlast it. */
export function shutdownTimeoutMs(): number {
  const match = /export function installShutdown\([^)]*timeoutMs\s*=\s*([\d_]+)/.exec(readText('packages/runtime/src/shutdown.ts'));
  if (!match?.[1]) throw new Error('installShutdown(…, timeoutMs = N) not found in packages/runtime/src/shutdown.ts');
  return Number(match[1].replace(/_/g, ''));
}

/** `mapping[key]` as a mapping, or a thrown error naming `where`. */
export function mapAt(value: YamlValue | undefined, key: string, where: string): YamlMap {
  const inner = isYamlMap(value) ? value[key] : undefined;
  if (!isYamlMap(inner)) throw new Error(`${where}: '${key}' is missing or not a mapping`);
  return inner;
}

/** Converts a duration such as `15s`, `1m30s` or `500ms` (compose format) to milliseconds. */
export function durationMs(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`'${text}' is not a duration like 15s`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ''] ?? 0), 0);
}
