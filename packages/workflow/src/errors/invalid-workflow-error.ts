/**
 * A workflow definition does not match {@link WorkflowDefinition}. A programming error, not a
 * fault to retry: `issues` names each bad field with its path, one per line.
 */
export class InvalidWorkflowError extends Error {
  override readonly name = 'InvalidWorkflowError';

  constructor(
    /** The definition's `name` when it has a usable one, for the message. */
    readonly workflow: string | undefined,
    readonly issues: readonly string[],
  ) {
    super(`Workflow ${workflow === undefined ? '(unnamed)' : `'${workflow}'`} is invalid; fix: ${issues.join('; ')}`);
  }
}
