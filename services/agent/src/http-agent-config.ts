import { z } from 'zod';
import { AgentConfigFields, checkRetryBounds } from '@sas/agent';

/**
 * The HTTP agent's environment: what every `@sas/agent` process reads (`...AgentConfigFields`)
 * plus which agent it serves and where the remote is. A process serves one remote service
 * (`AGENT`), scaled with replicas; `sas up` gives several agents that share a mapping one process
 * (`AGENT=inventory+payment+shipping`, decision 131). Parse it with `loadConfig(HttpAgentConfig, env)` in `main.ts` only.
 */
export const HttpAgentConfig = z
  .object({
    ...AgentConfigFields,
    /**
     * The remote service this agent wraps; it consumes `agent.<AGENT>.requests`. Several joined by
     * `+` (`inventory+payment+shipping`) are served side by side by this one process, each on its
     * own queue, all with the same mapping. Required.
     */
    AGENT: z
      .string({
        required_error: 'AGENT is required: set it to the remote service this agent serves, e.g. payment',
      })
      .regex(
        /^[a-z][a-z0-9-]*(\+[a-z][a-z0-9-]*)*$/,
        'AGENT must be lower-case letters, digits and -, starting with a letter (several agents joined by +, e.g. inventory+payment)',
      )
      .refine((names) => new Set(names.split('+')).size === names.split('+').length, 'AGENT names an agent twice'),
    /**
     * A JSON file mapping each operation to an HTTP call (see `HttpMapping`). Unset: remote-sim's
     * dialect at `REMOTE_URL`.
     */
    AGENT_MAPPING_FILE: z.string().min(1).optional(),
    /** Base URL of the remote services (the remote simulator locally); `{env.REMOTE_URL}` in a mapping. */
    REMOTE_URL: z
      .string()
      .url('REMOTE_URL must be a URL such as http://127.0.0.1:4100')
      .default('http://127.0.0.1:4100'),
    /** Longest single HTTP call before it counts as a transient fault and is retried; 0 = until complete-by. */
    REMOTE_CALL_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(10_000),
  })
  .superRefine(checkRetryBounds);
export type HttpAgentConfig = z.infer<typeof HttpAgentConfig>;
