/**
 * A process runs a workflow version this build does not have. It is not the process's fault and
 * may pass (a rolling deploy brings the version), so callers wait a grace period before giving
 * the process up to an operator; every other error of the pure transition is final at once.
 */
export class WorkflowNotDeployedError extends Error {
  override readonly name = 'WorkflowNotDeployedError';

  constructor(
    readonly workflow: string,
    readonly version: number,
  ) {
    super(`Workflow ${workflow} v${version} is not registered here; deploy a build that still has it`);
  }
}
