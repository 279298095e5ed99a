import type { AgentCall } from '@sas/agent';
import type { JsonObject } from '@sas/contracts';
import { TransientError, type Clock } from '@sas/runtime';
import { askLookup, type LookupRequest } from './http-lookup';
import type { LookupMapping } from './http-mapping';
import type { HttpFetch } from './keep-alive-fetch';

// Without resultPath or resultFields, a forward lookup's found record is the forward result: the
// undo's mapping has no forward success body to read it as.
const WHOLE_RECORD = { resultFields: {} };

/**
 * On an undo whose forward outcome is unknown (`compensates.result` null), asks the remote what the
 * forward call did, by the forward call's key. Resolves with the found record's result, which the
 * undo's templates then read as `compensates.result`, or with `null` when there is nothing to undo:
 * no record, and the forward call's complete-by (`compensates.completeBy`) has passed, so no try of
 * it can still be started or awaited by an agent.
 *
 * "Not found" earlier than that, or from a request that does not say when that is (an older
 * scheduler), cannot tell: the forward call may still land after the undo looked, and an undo that
 * took it as nothing to undo would leave its record behind for good.
 *
 * @throws TransientError when the lookup cannot tell (as an operation's lookup), and when nothing is
 *   found before the forward call's complete-by (with that instant as the retry hint); nothing is sent.
 */
export async function findForwardResult(
  lookup: LookupMapping,
  request: LookupRequest,
  call: AgentCall<unknown>,
  options: { fetch: HttpFetch; timeoutMs: number; clock: Clock },
): Promise<JsonObject | null> {
  const label = `the forwardLookup of ${call.agent}/${call.operation}`;
  const found = await askLookup({ lookup, readAs: WHOLE_RECORD, label }, request, call, options);
  if (found !== null) {
    call.logger.info({ key: request.key }, 'the forwardLookup found what the forward call did: the undo reads it as compensates.result');
    return found;
  }
  const completeBy = call.compensates?.completeBy;
  if (completeBy === undefined) {
    throw new TransientError(
      `${label} found no effect of '${request.key}', but the request does not say when the forward call's complete-by passes ` +
        '(a scheduler older than compensates.completeBy): the forward call may still land, so nothing was sent and the undo is retried. ' +
        'Upgrade the schedulers',
    );
  }
  const now = options.clock.now();
  if (now < completeBy) {
    throw new TransientError(
      `${label} found no effect of '${request.key}', but the forward call may still land until its complete-by ` +
        `(${new Date(completeBy).toISOString()}, ${completeBy - now} ms away): nothing was sent, and the undo asks again then`,
      completeBy - now,
    );
  }
  call.logger.info(
    { key: request.key, forwardCompleteBy: completeBy },
    'the forwardLookup found no effect and the forward call is past its complete-by: nothing to undo, nothing sent',
  );
  return null;
}
