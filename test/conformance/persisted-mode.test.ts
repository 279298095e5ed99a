import { readdirSync } from 'node:fs';
import { persistEmbeddedTargets } from './mongo-target';

/**
 * The whole conformance suite once more, against embedded servers that keep their state in a
 * SQLite file (`dataDir`): the persisted mode must answer exactly as the in-memory one. Each
 * conformance file is loaded again inside its own describe, after switching the targets to a
 * temporary data folder. Against a real MongoDB (`MONGO_URL`) there is nothing more to learn.
 */
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.test.ts') && f !== 'persisted-mode.test.ts')
  .sort();
const run = process.env['MONGO_URL'] ? describe.skip : describe;

persistEmbeddedTargets();
run.each(files)('%s, against an embedded server that keeps its state on disk', (file) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(`./${file}`);
});
