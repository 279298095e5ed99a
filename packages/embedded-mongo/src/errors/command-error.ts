import type { Document } from 'bson';
import { ErrorCodes, type ErrorCodeName } from './error-codes';

/**
 * A command failure with MongoDB's code, code name and message. Command handlers throw it; the
 * dispatcher turns it into `{ ok: 0, errmsg, code, codeName }` (or a write error entry), which the
 * driver raises as `MongoServerError` with the same `code`, exactly as real MongoDB would.
 */
export class CommandError extends Error {
  /** MongoDB's numeric error code. */
  readonly code: number;
  /** MongoDB's code name (`Location<code>` for codes MongoDB names only by number). */
  readonly codeName: string;
  /** Extra reply fields MongoDB sends with this error (e.g. `keyPattern`, `keyValue` for 11000). */
  readonly extra: Document;

  constructor(codeName: ErrorCodeName, message: string, extra: Document = {}) {
    super(message);
    this.name = 'CommandError';
    this.code = ErrorCodes[codeName];
    this.codeName = codeName;
    this.extra = extra;
  }

  /** The reply body MongoDB sends for a failed command. */
  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }
}

/**
 * The error for a MongoDB feature this server deliberately does not implement. It is a BadValue
 * (code 2) whose message names the feature and the way out, so nobody mistakes it for a bug in
 * their query: the embedded server must never pretend to support what it does not.
 */
export function notImplemented(feature: string): CommandError {
  return new CommandError(
    'BadValue',
    `${feature} is not implemented by the embedded MongoDB server (@sas/embedded-mongo); ` +
      'it implements only what this project uses. Set MONGO_URL to a real MongoDB to use it.',
  );
}
