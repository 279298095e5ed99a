import type { JsonObject } from '@sas/contracts';
import { PermanentError, TransientError, type Clock } from '@sas/runtime';
import type { AgentCall, OperationHandler } from '../agent-call';

/** What the scripted remote does on one call. */
export type Script =
  | { kind: 'ok'; result?: JsonObject }
  | { kind: 'transient'; retryAfterMs?: number }
  | { kind: 'permanent' }
  /** Never answers; rejects only when the caller's signal aborts. */
  | { kind: 'hang' }
  /** Answers when the test resolves or rejects the gate. */
  | { kind: 'gate'; gate: Promise<JsonObject> }
  /** Throws something that is neither TransientError nor PermanentError (an unknown outcome). */
  | { kind: 'throw'; value: unknown }
  /** Resolves with whatever `value` is, JSON object or not. */
  | { kind: 'return'; value: unknown };

/** One call the scripted remote received. */
export interface ReceivedCall {
  call: AgentCall<unknown>;
  at: number;
  signal: AbortSignal;
}

/**
 * An {@link OperationHandler} that follows a script, one entry per call (the last entry repeats), and
 * records every call with the virtual time it arrived.
 */
export function scriptedRemote(
  clock: Clock,
  script: Script[],
): { handler: OperationHandler<unknown>; calls: ReceivedCall[] } {
  const calls: ReceivedCall[] = [];
  const handler: OperationHandler<unknown> = (call) => {
    const { signal } = call;
    const step = script[Math.min(calls.length, script.length - 1)];
    calls.push({ call, at: clock.now(), signal });
    if (!step) return Promise.reject(new Error('scriptedRemote needs at least one script entry'));
    switch (step.kind) {
      case 'ok':
        return Promise.resolve({ ...(step.result ?? { accepted: true }), effectId: `eff-${calls.length}` });
      case 'transient':
        return Promise.reject(new TransientError('remote answered 503: busy', step.retryAfterMs));
      case 'permanent':
        return Promise.reject(new PermanentError('remote answered 422: card declined'));
      case 'hang':
        return new Promise<JsonObject>((_, reject) => {
          signal.addEventListener('abort', () => reject(new TransientError('call aborted by the agent')), {
            once: true,
          });
        });
      case 'gate':
        return step.gate;
      case 'throw':
        return Promise.reject(step.value);
      case 'return':
        return Promise.resolve(step.value as JsonObject);
    }
  };
  return { handler, calls };
}
