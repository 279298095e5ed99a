import { QueueNames } from '@sas/contracts';

/**
 * Every queue of the system an operator may need to look at, in the order bull-board lists them:
 * the fixed queues, then one request queue per agent. Agents are configured because the queues
 * of an agent exist only once someone sends to it; listing them up front shows an idle agent too.
 */
export function systemQueueNames(agents: readonly string[]): string[] {
  return [
    QueueNames.submission,
    QueueNames.schedulerReady,
    QueueNames.schedulerReplies,
    QueueNames.alerts,
    QueueNames.deadLetter,
    QueueNames.operatorCommands,
    QueueNames.processSignals,
    ...agents.map((agent) => QueueNames.agentRequests(agent)),
  ];
}
