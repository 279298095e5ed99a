import { Long } from 'bson';
import { isNumeric, toNumber } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import type { CommandHandler } from './command-context';
import { checkFields, cursorReply, optionalInteger } from './command-fields';

function cursorId(value: unknown, field: string): number {
  if (!isNumeric(value))
    throw new CommandError('TypeMismatch', `BSON field '${field}' is the wrong type, expected type 'long'`);
  return toNumber(value);
}

/** `getMore`: the next batch of a cursor opened by find, aggregate or a list command. */
export const getMore: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['collection', 'batchSize', 'term', 'lastKnownCommittedOpTime']);
  const id = cursorId(cmd['getMore'], 'getMore.getMore');
  const collection = cmd['collection'];
  if (typeof collection !== 'string')
    throw new CommandError(
      'Location40414',
      "BSON field 'getMore.collection' is missing but a required field",
    );
  // List commands' cursors live on `<db>.$cmd.listIndexes.<coll>`-style namespaces, so no name validation here.
  const ns = `${db}.${collection}`;
  const batch = ctx.cursors.getMore(id, ns, optionalInteger(cmd, 'batchSize') || undefined);
  return cursorReply(ns, batch, 'nextBatch');
};

/** `killCursors`: closes cursors the client no longer needs. */
export const killCursors: CommandHandler = (cmd, _db, ctx) => {
  checkFields(cmd, ['cursors']);
  const ids = cmd['cursors'];
  if (!Array.isArray(ids))
    throw new CommandError(
      'Location40414',
      "BSON field 'killCursors.cursors' is missing but a required field",
    );
  const { killed, notFound } = ctx.cursors.kill(ids.map((v: unknown) => cursorId(v, 'killCursors.cursors')));
  const longs = (xs: number[]): Long[] => xs.map((x) => Long.fromNumber(x));
  return {
    cursorsKilled: longs(killed),
    cursorsNotFound: longs(notFound),
    cursorsAlive: [],
    cursorsUnknown: [],
    ok: 1,
  };
};
