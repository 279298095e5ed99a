/**
 * Every BullMQ queue name the system uses, in one place. Names use dots, never `:`,
 * because BullMQ reserves `:` as its key separator.
 */
export const QueueNames = {
  /** Applications submit orders here. */
  submission: 'submission',
  /** Wake-up hints for schedulers; the store is the truth, a periodic poll catches missed hints. */
  schedulerReady: 'scheduler.ready',
  /** Replies from every agent to any scheduler instance. */
  schedulerReplies: 'scheduler.replies',
  /** Operator alerts (threshold reached, compensation failed, ...). */
  alerts: 'alerts',
  /** Messages that could not be handled, kept with the reason. */
  deadLetter: 'dead-letter',
  /** Operator commands: resubmit, cancel. */
  operatorCommands: 'operator.commands',
  /** Signals from outside for one process each (a signal step waits for them); the schedulers apply them. */
  processSignals: 'process.signals',
  /** The request queue of one agent (one remote service). */
  agentRequests: (agent: string): string => `agent.${agent}.requests`,
} as const;

/** Queue names must be usable as BullMQ names and as Redis key parts. */
export const QUEUE_NAME_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;
