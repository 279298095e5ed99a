import type { JsonObject } from '@sas/contracts';
import { PermanentError, TransientError, type Clock } from '@sas/runtime';
import type { RemoteCall, RemoteCallRequest } from '../remote-call';

/** What the scripted remote does on one call. */
export type Script =
  | { kind: 'ok'; result?: JsonObject }
  | { kind: 'transient'; retryAfterMs?: number }
  | { kind: 'permanent' }
  /** Never answers; rejects only when the caller's signal aborts. */
  | { kind: 'hang' }
  /** Answers when the test resolves or rejects the gate. */
  | { kind: 'gate'; gate: Promise<JsonObject> };

/** One call the scripted remote received. */
export interface ReceivedCall {
  request: RemoteCallRequest;
  at: number;
  signal: AbortSignal;
}

/**
 * A {@link RemoteCall} that follows a script, one entry per call (the last entry repeats), and
 * records every call with the virtual time it arrived.
 */
export function scriptedRemote(
  clock: Clock,
  script: Script[],
): { remoteCall: RemoteCall; calls: ReceivedCall[] } {
  const calls: ReceivedCall[] = [];
  const remoteCall: RemoteCall = (request, signal) => {
    const step = script[Math.min(calls.length, script.length - 1)];
    calls.push({ request, at: clock.now(), signal });
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
    }
  };
  return { remoteCall, calls };
}
