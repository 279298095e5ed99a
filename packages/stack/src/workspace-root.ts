import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The monorepo root (the directory holding `pnpm-workspace.yaml`) above `from`, so tests and the
 * launcher find built services without hard-coded relative paths.
 */
export function findWorkspaceRoot(from: string = __dirname): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(
        `Could not find pnpm-workspace.yaml in ${resolve(from)} or any parent directory; ` +
          'run from inside the sas workspace or pass its root explicitly',
      );
    }
    dir = parent;
  }
}

/**
 * The built entry point of a service (`<root>/services/<name>/dist/main.js`), checked to exist so
 * a missing build fails here with the fix rather than as a cryptic child-process exit.
 */
export function serviceScript(root: string, name: string): string {
  const script = join(root, 'services', name, 'dist', 'main.js');
  if (!existsSync(script)) {
    throw new Error(`Service '${name}' is not built: ${script} does not exist; run \`pnpm build\` first`);
  }
  return script;
}
