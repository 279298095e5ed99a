import type { ProcessDocument } from '@sas/contracts';

/** Claims a process from a copy just written beside it; true only when the claim was committed. */
export type LocalClaim = (copy: ProcessDocument) => Promise<boolean>;

/** The same system: one Redis (and queue prefix) and one MongoDB database. */
export interface LocalSystem {
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  MONGO_URL: string;
  MONGO_DB: string;
}

/**
 * Where the board lives: a global, not a module variable, so that roles which resolved their own
 * copies of this package (an installed sas) still meet on one board, as {@link runMain}'s host does.
 */
const BOARD_KEY = Symbol.for('@sas/wiring.local-wakeups');

function board(): Map<string, LocalClaim[]> {
  const global = globalThis as { [BOARD_KEY]?: Map<string, LocalClaim[]> };
  global[BOARD_KEY] ??= new Map();
  return global[BOARD_KEY];
}

function keyOf(system: LocalSystem): string {
  return JSON.stringify([system.REDIS_URL, system.QUEUE_PREFIX, system.MONGO_URL, system.MONGO_DB]);
}

/**
 * A scheduler offers to claim, in this Node process, the processes a submission role beside it
 * inserts (`sas up`'s shared core, decision 128): the wake-up job and the claim's read are then
 * not needed. Only roles of the same system meet. Returns the withdrawal, for the scheduler's close.
 */
export function offerLocalClaims(system: LocalSystem, claim: LocalClaim): () => void {
  const key = keyOf(system);
  board().set(key, [...(board().get(key) ?? []), claim]);
  return () => {
    const left = (board().get(key) ?? []).filter((c) => c !== claim);
    if (left.length > 0) board().set(key, left);
    else board().delete(key);
  };
}

/**
 * Claims `copy` through a scheduler of the same system in this process, if one offered; false when
 * none did or it declined, and the caller then wakes a scheduler through the queue as always.
 */
export function claimLocally(system: LocalSystem, copy: ProcessDocument): Promise<boolean> {
  const claim = board().get(keyOf(system))?.[0];
  return claim ? claim(copy) : Promise.resolve(false);
}
