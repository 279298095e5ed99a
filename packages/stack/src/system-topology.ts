/** How many of each service a local system runs. */
export interface SystemTopology {
  /** @default 1 */
  submission?: number;
  /** @default 2 */
  schedulers?: number;
  /** @default 2 */
  supervisors?: number;
  /** Replicas per agent (remote service). @default { inventory: 1, payment: 1, shipping: 1 } */
  agents?: Record<string, number>;
  /** Dashboards (operator surface), started after every other service. @default 0 */
  dashboard?: number;
}

/** Roles a service process can have. */
export type ServiceRole = 'remote-sim' | 'submission' | 'scheduler' | 'supervisor' | 'dashboard' | 'core' | `agent-${string}`;

/** The log message each service prints once it is serving; the launcher waits for it. */
export const READY_MESSAGES: Record<string, string> = {
  'remote-sim': 'listening',
  submission: 'submission ready',
  scheduler: 'scheduler ready',
  supervisor: 'supervisor ready',
  agent: 'agent ready',
  dashboard: 'dashboard ready',
  core: 'core ready',
};
