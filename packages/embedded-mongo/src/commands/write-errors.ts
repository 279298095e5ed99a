import type { Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';

/**
 * Runs the statements of a write command (insert, update, delete) in order, collecting
 * CommandErrors as MongoDB's `writeErrors` entries (`{ index, code, errmsg, ... }`): an ordered
 * batch stops at the first error, an unordered one carries on. Any other exception is a bug
 * and propagates.
 */
export function runStatements<T>(
  statements: readonly T[],
  ordered: boolean,
  run: (statement: T, index: number) => void,
): Doc[] {
  const writeErrors: Doc[] = [];
  for (let index = 0; index < statements.length; index++) {
    try {
      run(statements[index] as T, index);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      writeErrors.push({ index, code: error.code, errmsg: error.message, ...error.extra });
      if (ordered) break;
    }
  }
  return writeErrors;
}

/** Adds `writeErrors` to a reply only when there are some, as MongoDB does. */
export function withWriteErrors(reply: Doc, writeErrors: readonly Doc[]): Doc {
  return writeErrors.length > 0 ? { ...reply, writeErrors } : reply;
}
