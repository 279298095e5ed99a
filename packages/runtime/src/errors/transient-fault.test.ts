import {
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { ReplyError } from 'ioredis';
import { PermanentError } from './permanent-error';
import { RedisUnavailableError } from './redis-unavailable-error';
import { TransientError } from './transient-error';
import { isTransientFault, mongoTransientReason, redisTransientReason, transientFaultReason } from './transient-fault';

/** A server error exactly as the driver builds it from a reply `{ ok: 0, code, codeName, errmsg, errorLabels }`. */
function serverError(code: number, codeName: string, errorLabels?: string[]): MongoServerError {
  return new MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} from the server`, ...(errorLabels ? { errorLabels } : {}) });
}

describe('transientFaultReason', () => {
  describe('when a primary steps down or is being replaced', () => {
    it.each([
      [10107, 'NotWritablePrimary'],
      [189, 'PrimarySteppedDown'],
      [11602, 'InterruptedDueToReplStateChange'],
      [13435, 'NotPrimaryNoSecondaryOk'],
      [13436, 'NotPrimaryOrSecondary'],
      [91, 'ShutdownInProgress'],
      [11600, 'InterruptedAtShutdown'],
    ])('classifies code %i %s as transient without any label (a standalone or retryWrites=false)', (code, codeName) => {
      expect(transientFaultReason(serverError(code, codeName))).toBe(`MongoDB code ${code} ${codeName}`);
    });

    it('classifies by the RetryableWriteError label the server adds to a retryable write', () => {
      // The label wins whatever the code: MongoDB 4.4+ decides which codes are retryable and says so.
      expect(transientFaultReason(serverError(999_999, 'SomeFutureCode', ['RetryableWriteError']))).toBe('MongoDB error label RetryableWriteError');
    });

    it('classifies by the TransientTransactionError label', () => {
      expect(isTransientFault(serverError(251, 'NoSuchTransaction', ['TransientTransactionError']))).toBe(true);
    });

    it('classifies a write concern error by its code: a step-down before majority acknowledged is transient', () => {
      const error = new MongoWriteConcernError({ writeConcernError: { code: 189, errmsg: 'stepped down' }, ok: 1 } as never);
      expect(transientFaultReason(error)).toBe('MongoDB code 189 PrimarySteppedDown');
    });
  });

  describe('when the network or server selection fails', () => {
    it('classifies network errors and timeouts as transient', () => {
      expect(transientFaultReason(new MongoNetworkError('connection reset'))).toBe('MongoNetworkError');
      expect(transientFaultReason(new MongoNetworkTimeoutError('timed out'))).toBe('MongoNetworkTimeoutError');
    });

    it('classifies "no primary within serverSelectionTimeoutMS" (an election) as transient', () => {
      expect(transientFaultReason(new MongoServerSelectionError('Server selection timed out after 5000 ms', {} as never))).toBe('MongoServerSelectionError');
    });
  });

  describe('when retrying cannot help', () => {
    it.each([
      ['a duplicate key', serverError(11000, 'DuplicateKey')],
      ['a bad value', serverError(2, 'BadValue')],
      ['an unknown write concern', new MongoWriteConcernError({ writeConcernError: { code: 79, errmsg: 'unknown mode' }, ok: 1 } as never)],
      ['a PermanentError', new PermanentError('refused')],
      ['a plain Error', new Error('kept changing')],
      ['a string', 'not an error'],
      ['undefined', undefined],
    ])('does not classify %s as transient', (_what, error) => {
      expect(transientFaultReason(error)).toBeUndefined();
      expect(isTransientFault(error)).toBe(false);
    });
  });

  it('keeps recognising TransientError, which is not a MongoDB fault', () => {
    expect(transientFaultReason(new TransientError('send timed out'))).toBe('TransientError');
    expect(mongoTransientReason(new TransientError('send timed out'))).toBeUndefined();
    expect(mongoTransientReason(serverError(189, 'PrimarySteppedDown'))).toBe('MongoDB code 189 PrimarySteppedDown');
  });

  it('follows the cause chain of a wrapped driver error, and stops at a cycle', () => {
    const wrapped = new Error('could not commit', { cause: new Error('store call failed', { cause: serverError(10107, 'NotWritablePrimary') }) });
    expect(transientFaultReason(wrapped)).toBe('MongoDB code 10107 NotWritablePrimary');
    const cyclic = new Error('a');
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(isTransientFault(cyclic)).toBe(false);
  });
});

describe('redisTransientReason', () => {
  describe('when a Redis Cluster fails over or moves a slot', () => {
    it.each([
      ['CLUSTERDOWN The cluster is down', 'Redis CLUSTERDOWN'],
      ['MOVED 3999 127.0.0.1:7002', 'Redis MOVED'],
      ['TRYAGAIN Multiple keys request during rehashing of slot', 'Redis TRYAGAIN'],
      ["READONLY You can't write against a read only replica.", 'Redis READONLY'],
      ['LOADING Redis is loading the dataset in memory', 'Redis LOADING'],
    ])('classifies the reply %s as transient', (message, reason) => {
      expect(redisTransientReason(new ReplyError(message))).toBe(reason);
    });

    it("classifies ioredis's own give-ups as transient, also when wrapped", () => {
      expect(redisTransientReason(new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'))).toBe(
        'Redis: Too many Cluster redirections. Last error: Error: Connection is closed.',
      );
      expect(redisTransientReason(new Error('dispatch failed', { cause: new Error('Connection is closed.') }))).toBe('Redis: Connection is closed.');
      const allFailed = Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' });
      expect(redisTransientReason(allFailed)).toBe('ClusterAllFailedError');
    });

    it('classifies a send past its deadline as transient, and it stays a TransientError', () => {
      const late = new RedisUnavailableError("send to queue 'alerts' took longer than 5000 ms; is Redis reachable?");
      expect(redisTransientReason(late)).toBe('RedisUnavailableError');
      expect(late).toBeInstanceOf(TransientError);
      expect(transientFaultReason(new ReplyError('CLUSTERDOWN Hash slot not served'))).toBe('Redis CLUSTERDOWN');
    });
  });

  describe('when retrying cannot help, or the fault is not Redis’s', () => {
    it.each([
      ['a script error', new ReplyError('ERR Error running script (call to f_1234): @user_script:1: oops')],
      ['a cross-slot command (a bug: keys of two queues in one script)', new ReplyError("CROSSSLOT Keys in request don't hash to the same slot")],
      ['a remote refusing the connection (an agent’s HTTP call)', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), { code: 'ECONNREFUSED' })],
      ['a plain TransientError', new TransientError('remote answered 503')],
    ])('does not classify %s', (_what, error) => {
      expect(redisTransientReason(error)).toBeUndefined();
    });
  });
});
