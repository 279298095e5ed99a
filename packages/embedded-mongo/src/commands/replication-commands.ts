import { isNumeric, toNumber, typeAlias } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import type { CommandHandler } from './command-context';
import { checkFields } from './command-fields';

/**
 * `replSetStepDown: <seconds>` on the admin database, as on a real replica set: the primary
 * becomes a secondary for that many seconds, then (being the only member) is elected again. With
 * no other member to catch up, MongoDB refuses unless `force: true` after waiting
 * `secondaryCatchUpPeriodSecs`; this server refuses at once (ExceededTimeLimit, code 262). On a
 * standalone it is NoReplicationEnabled (76), as MongoDB answers. This is the embedded server's
 * fault switch for tests of step-down handling: the same command works on a real one-member set.
 */
export const replSetStepDown: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['force', 'secondaryCatchUpPeriodSecs']);
  if (db !== 'admin') throw new CommandError('Unauthorized', 'replSetStepDown may only be run against the admin database.');
  if (ctx.replication.setName === undefined) throw new CommandError('NoReplicationEnabled', 'not running with --replSet');
  const seconds = cmd['replSetStepDown'];
  if (!isNumeric(seconds) || toNumber(seconds) <= 0) {
    throw new CommandError(
      'BadValue',
      `replSetStepDown needs a positive number of seconds (got ${isNumeric(seconds) ? String(toNumber(seconds)) : typeAlias(seconds)})`,
    );
  }
  if (!ctx.replication.isWritablePrimary()) throw new CommandError('NotWritablePrimary', 'not primary so can\'t step down');
  if (cmd['force'] !== true) {
    throw new CommandError('ExceededTimeLimit', 'No electable secondaries caught up; this is a one-member set: use force: true');
  }
  ctx.replication.stepDown(toNumber(seconds) * 1000);
  return { ok: 1 };
};
