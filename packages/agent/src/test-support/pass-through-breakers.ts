import type { Breakers } from '../breakers';

/** {@link Breakers} that never open, for tests of the retry logic alone. */
export const passThroughBreakers: Breakers = {
  call: (_service, action) => action(),
  blockedFor: () => undefined,
  state: () => ({ state: 'closed', retryAt: null }),
  onStateChange: () => () => undefined,
};
