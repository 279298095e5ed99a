import { compilePayloadSchema, type PayloadCheck } from '@sas/contracts';
import { InvalidInputSchemaError } from './errors/invalid-input-schema-error';
import type { WorkflowDefinition } from './workflow-definition';

// Compiled once per definition object: the registry keeps one object per workflow version, so
// each version's schema is compiled once, at load, and every submission reuses it.
const compiled = new WeakMap<WorkflowDefinition, PayloadCheck>();

/**
 * The check of `workflow`'s `inputSchema`, compiled on first use and kept; a workflow without a
 * schema accepts every payload.
 *
 * @throws InvalidInputSchemaError naming the workflow when the schema does not compile.
 */
export function inputValidatorOf(workflow: WorkflowDefinition): PayloadCheck {
  const known = compiled.get(workflow);
  if (known) return known;
  let check: PayloadCheck = () => [];
  if (workflow.inputSchema !== undefined) {
    try {
      check = compilePayloadSchema(workflow.inputSchema);
    } catch (e) {
      throw new InvalidInputSchemaError(workflow.name, workflow.version, e instanceof Error ? e.message : String(e));
    }
  }
  compiled.set(workflow, check);
  return check;
}

/**
 * Each field of `payload` that `workflow`'s input schema refuses, as `payload.amount: must be number`;
 * empty when the payload fits (or the workflow has no schema).
 */
export function payloadIssues(workflow: WorkflowDefinition, payload: unknown): string[] {
  return inputValidatorOf(workflow)(payload);
}
