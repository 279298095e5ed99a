import { readFileSync } from 'node:fs';

/** Reads a file named by a config variable, or undefined when unset; the error names the variable. */
export function readOptionalFile(variable: string, path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`${variable} points at '${path}', which cannot be read: ${(e as Error).message}`, { cause: e });
  }
}
