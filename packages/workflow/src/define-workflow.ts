import type { JsonObject } from '@sas/contracts';
import type { z } from 'zod';
import { InvalidWorkflowError } from './errors/invalid-workflow-error';
import { WorkflowDefinition, type StepDefinition } from './workflow-definition';
import { describeWorkflowIssues } from './workflow-issues';

/** A step as written in code: retry fields may be left to their defaults. */
export type StepInput<Name extends string> = z.input<typeof StepDefinition> & { name: Name };

/** A workflow as written in code, its step names inferred as literal types. */
export type WorkflowInput<Name extends string> = Omit<z.input<typeof WorkflowDefinition>, 'steps'> & {
  steps: ReadonlyArray<StepInput<Name>>;
};

/** A validated workflow whose step names are known to the compiler; usable wherever a WorkflowDefinition is. */
export type DefinedWorkflow<Name extends string> = WorkflowDefinition & { steps: Array<StepDefinition & { name: Name }> };

/** The step names of a workflow made by {@link defineWorkflow}: `'reserve-inventory' | 'charge-payment' | …`. */
export type StepName<W extends { steps: ReadonlyArray<{ name: string }> }> = W['steps'][number]['name'];

/**
 * What a step's request carries in `results`, typed by the workflow: a key per step name, absent
 * when that step has no result (not run yet, or its result could not be carried).
 */
export type StepResults<W extends { steps: ReadonlyArray<{ name: string }> }> = Partial<Record<StepName<W>, JsonObject>>;

/**
 * Validates a workflow written in TypeScript and returns it with defaults filled in and its step
 * names as literal types, so code that reads step results is checked by the compiler.
 *
 * @throws InvalidWorkflowError naming each bad field with its path (`steps[1].completeByMs: …`).
 * @example
 * ```ts
 * const shop = defineWorkflow({ name: 'shop', version: 1, steps: [...], ... });
 * type ShopResults = StepResults<typeof shop>;
 * const reservation = (results as ShopResults)['reserve-inventory']?.['reservationId'];
 * ```
 */
export function defineWorkflow<const Name extends string>(definition: WorkflowInput<Name>): DefinedWorkflow<Name> {
  const parsed = WorkflowDefinition.safeParse(definition);
  if (!parsed.success) {
    const name = typeof definition.name === 'string' && definition.name !== '' ? definition.name : undefined;
    throw new InvalidWorkflowError(name, describeWorkflowIssues(parsed.error.issues));
  }
  // The schema checked every step; their names are the literals the caller wrote.
  return parsed.data as DefinedWorkflow<Name>;
}
