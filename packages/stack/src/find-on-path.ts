import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The absolute path of an executable named `binary` on `PATH`, or `undefined`.
 * Used to decide, before spawning anything, whether `redis-server` or `mongod` can run here, so
 * the caller can pick another option or fail with an error that says what to install.
 */
export function findOnPath(binary: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir.length > 0);
  for (const dir of dirs) {
    const candidate = join(dir, binary);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Missing or not executable: keep looking in the next directory.
    }
  }
  return undefined;
}
