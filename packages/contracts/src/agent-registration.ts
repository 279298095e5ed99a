import { z } from 'zod';

/**
 * What one running agent instance serves, written to `agent_registrations` when it starts and
 * refreshed by its heartbeat; removed when it closes cleanly, or by the TTL index once its
 * heartbeat stops (a crash). `sas agents`, `sas workflows check --live` and the scheduler's start
 * read it to find step operations and compensations that no live agent serves.
 */
export const AgentRegistration = z.object({
  /** `<agent>/<instanceId>`: one document per agent per process. */
  _id: z.string(),
  /** The agent's name, as workflows name it. */
  agent: z.string(),
  instanceId: z.string(),
  /** Every operation it has a handler for, sorted. */
  operations: z.array(z.string()),
  /** Those of `operations` its author declared as compensations (undo operations); empty when not said. */
  compensations: z.array(z.string()),
  /** It has a catch-all handler (`otherOperations`, an HTTP mapping's `*`): it takes any operation name. */
  servesOtherOperations: z.boolean(),
  /** The version the process says it runs (its own release, not sas's); null when not given. */
  version: z.string().nullable(),
  startedAt: z.date(),
  /** The last heartbeat. */
  lastSeen: z.date(),
  /** Past this the instance counts as gone; the TTL index removes the document. */
  deleteTime: z.date(),
});
export type AgentRegistration = z.infer<typeof AgentRegistration>;
