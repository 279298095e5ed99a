/**
 * Workflows as data and the pure process state machine. No I/O.
 *
 * @example
 * ```ts
 * const registry = new WorkflowRegistry(builtInWorkflows);
 * const result = transition(doc, { type: 'claim' }, { workflow, now, who, replyQueue });
 * if (result.applied) { await store.commit(result.next, doc.revision); perform(result.actions); }
 * ```
 */
export * from './workflow-definition';
export * from './workflow-entries';
export * from './condition';
export * from './workflow-registry';
export * from './errors/workflow-not-deployed-error';
export * from './errors/invalid-workflow-error';
export * from './errors/invalid-input-schema-error';
export * from './payload-issues';
export * from './input-schema-limit';
export * from './workflow-issues';
export * from './define-workflow';
export * from './order-fulfilment';
export * from './process-input';
export { liveAgentsOf, type LiveAgent, type LiveAgents } from './expiry-reason';
export * from './action';
export * from './transition-context';
export * from './transition-result';
export * from './idempotency-key';
export * from './create-process';
export * from './compensation';
export * from './claim';
export * from './apply-reply';
export * from './recover';
export * from './operator-actions';
export * from './undelivered';
export * from './pause-hold';
export * from './transition';
export * from './load-workflows';
export * from './unserved-operations';
export * from './workflows-to-check';
