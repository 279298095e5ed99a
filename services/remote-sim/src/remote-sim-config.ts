import { z } from 'zod';
import { CommonConfig } from '@sas/runtime';
import { RemoteSimMode } from './remote-sim-mode';

/** The environment of `services/remote-sim`; parsed by `loadConfig` in `main.ts`. */
export const RemoteSimConfig = z.object({
  /** HTTP port; 0 picks a free one, which the `listening` log line reports. */
  PORT: z.coerce.number().int().min(0).max(65535).default(4100),
  /** Interface to bind; loopback by default so a dev machine does not expose it. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Seed of the fault dice: the same seed and the same calls fail the same way. */
  SEED: z.coerce.number().int().default(42),
  /**
   * `protective` refuses a forward call that arrives after its undo; `plain` applies it, so tests
   * of the engine's guarantees see what the engine did; `keyless` also ignores idempotency keys,
   * applying every repeat again (see RemoteSimMode).
   */
  REMOTE_SIM_MODE: RemoteSimMode.default('protective'),
  LOG_LEVEL: CommonConfig.LOG_LEVEL,
  INSTANCE_ID: CommonConfig.INSTANCE_ID,
});
export type RemoteSimConfig = z.infer<typeof RemoteSimConfig>;
