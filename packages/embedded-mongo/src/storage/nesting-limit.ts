import type { Doc } from '../bson/bson-types';
import { measureNesting } from '../bson/nesting-depth';
import { CommandError } from '../errors/command-error';

/**
 * How deeply MongoDB lets a stored document nest, the root counting as level 1: its
 * `maxBSONDepth` (200) less the 20 levels it keeps for commands and oplog entries that wrap
 * user documents (`BSONDepth::getMaxDepthForUserStorage`). MongoDB's documentation promises 100.
 * Every write refuses deeper documents, so nothing stored is ever too deep to read back.
 */
const MAX_STORED_DEPTH = 180;

/**
 * Refuses a document to insert that opens a level past {@link MAX_STORED_DEPTH}, with MongoDB's
 * insert-path error (Overflow, code 15; a write error of that document).
 */
export function checkInsertDepth(doc: Doc): void {
  if (measureNesting(doc, MAX_STORED_DEPTH).levels > MAX_STORED_DEPTH) {
    throw new CommandError(
      'Overflow',
      `cannot insert document because it exceeds ${MAX_STORED_DEPTH} levels of nesting`,
    );
  }
}

/**
 * Refuses the result of an update, replacement or upsert that holds a field past
 * {@link MAX_STORED_DEPTH}, with MongoDB's storage-validation error (Overflow, code 15). MongoDB
 * counts fields here, not levels, so an empty document one level past the limit passes, as it
 * does there.
 */
export function checkStoredDepth(doc: Doc): void {
  if (measureNesting(doc, MAX_STORED_DEPTH).fieldLevel > MAX_STORED_DEPTH)
    throw new CommandError('Overflow', `Document exceeds maximum nesting depth of ${MAX_STORED_DEPTH}`);
}
