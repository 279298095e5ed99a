import type { Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import type { CommandContext, CommandHandler } from './command-context';

/** The MongoDB version this server answers to: 7.0, wire version 21. */
export const SERVER_VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;
const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE_BYTES = 48_000_000;

/**
 * The `hello`/`isMaster` reply. A standalone has no `setName`, so the driver neither starts
 * transactions nor retries writes; a one-member replica set has it (with `hosts`, `me` and, while
 * primary, `primary` and `electionId`), so the driver retries writes and reads once, and reports
 * `secondary: true` while stepped down. No `topologyVersion`, so the driver polls instead of
 * streaming. `legacy` picks the `ismaster` field name over `isWritablePrimary`.
 */
export function helloReply(ctx: CommandContext, legacy: boolean): Doc {
  return {
    helloOk: true,
    [legacy ? 'ismaster' : 'isWritablePrimary']: ctx.replication.isWritablePrimary(),
    ...ctx.replication.helloFields(),
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
    maxWriteBatchSize: 100000,
    localTime: ctx.now(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

/** `hello` (OP_MSG form; the first, legacy OP_QUERY form is answered by the connection). */
export const hello: CommandHandler = (cmd, _db, ctx) => helloReply(ctx, !('hello' in cmd));

/** `ping`: liveness for drivers and health checks. */
export const ping: CommandHandler = () => ({ ok: 1 });

/** `buildInfo`: tools read the version; `embedded: true` tells a curious reader what answered. */
export const buildInfo: CommandHandler = () => ({
  version: SERVER_VERSION,
  gitVersion: 'sas-embedded-mongo',
  versionArray: [7, 0, 0, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ['inMemory'],
  embedded: true,
  ok: 1,
});

/** `getParameter`: only `featureCompatibilityVersion`, which some tools ask for; others report as absent. */
export const getParameter: CommandHandler = (cmd) => {
  const reply: Doc = {};
  if (cmd['featureCompatibilityVersion'] !== undefined || cmd['getParameter'] === '*') {
    reply['featureCompatibilityVersion'] = { version: '7.0' };
  }
  if (Object.keys(reply).length === 0) throw new CommandError('InvalidOptions', 'no option found to get');
  return { ...reply, ok: 1 };
};

/** `endSessions`: forgets the sessions' retryable-write replies; nothing else is kept per session. */
export const endSessions: CommandHandler = (cmd, _db, ctx) => {
  ctx.retryableWrites.endSessions(cmd);
  return { ok: 1 };
};
