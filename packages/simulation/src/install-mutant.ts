import Module from 'node:module';
import { join } from 'node:path';
import type { Mutant } from './mutants';

interface Compilable {
  _compile(content: string, filename: string): unknown;
}

/**
 * Rewrites the mutant's file as Node loads it, in this process only. Must run before anything
 * requires that file. Returns a function telling whether the rewrite happened (the file loaded).
 */
export function installMutant(mutant: Mutant, workspaceRoot: string): () => boolean {
  const target = join(workspaceRoot, mutant.file);
  const proto = (Module as unknown as { prototype: Compilable }).prototype;
  const original = proto._compile;
  let applied = false;
  proto._compile = function compile(this: Compilable, content: string, filename: string) {
    if (filename === target) {
      const matches = content.match(new RegExp(mutant.find.source, 'g'))?.length ?? 0;
      if (matches !== 1) throw new Error(`mutant '${mutant.name}' matches ${matches} times in ${mutant.file}; it must match once: update it to the code`);
      content = content.replace(mutant.find, mutant.replace);
      applied = true;
    }
    return original.call(this, content, filename);
  };
  return () => applied;
}
