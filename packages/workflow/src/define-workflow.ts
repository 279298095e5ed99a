import type { JsonObject } from '@sas/contracts';
import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { InvalidWorkflowError } from './errors/invalid-workflow-error';
import {
  WorkflowDefinition,
  type GroupMember,
  type ParallelGroup,
  type SignalStep,
  type StepDefinition,
  type WaitStep,
  type WorkflowEntry,
} from './workflow-definition';
import { describeWorkflowIssues } from './workflow-issues';

/** A task step as written in code: retry fields may be left to their defaults. */
export type StepInput<Name extends string> = z.input<typeof StepDefinition> & { name: Name };

/** Any entry as written in code (a task, a parallel group, a wait, a signal step), its names inferred. */
export type EntryInput<Name extends string> =
  | StepInput<Name>
  | (Omit<z.input<typeof ParallelGroup>, 'parallel'> & { name: Name; parallel: ReadonlyArray<z.input<typeof GroupMember> & { name: Name }> })
  | (z.input<typeof WaitStep> & { name: Name })
  | (z.input<typeof SignalStep> & { name: Name });

/** A workflow as written in code, its step names (group members included) inferred as literal types. */
export type WorkflowInput<Name extends string> = Omit<z.input<typeof WorkflowDefinition>, 'steps' | 'inputSchema'> & {
  steps: ReadonlyArray<EntryInput<Name>>;
  /** The payload's JSON Schema, or a zod schema from which it is derived (see {@link defineWorkflow}). */
  inputSchema?: JsonObject | z.ZodTypeAny;
};

/** A validated workflow whose step names are known to the compiler; usable wherever a WorkflowDefinition is. */
export type DefinedWorkflow<Name extends string> = WorkflowDefinition & { steps: Array<WorkflowEntry & { name: Name }> };

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
 * `inputSchema` may be a zod schema: its JSON Schema is derived here (zod-to-json-schema, inlined,
 * no `$ref`), so the definition stays data that a file, the submission service and the client share.
 * Only what JSON Schema can say survives: a `.refine()` or `.transform()` is not carried over.
 *
 * @throws InvalidWorkflowError naming each bad field with its path (`steps[1].completeByMs: …`).
 * @example
 * ```ts
 * const shop = defineWorkflow({ name: 'shop', version: 1, steps: [...], inputSchema: z.object({ amount: z.number() }), ... });
 * type ShopResults = StepResults<typeof shop>;
 * const reservation = (results as ShopResults)['reserve-inventory']?.['reservationId'];
 * ```
 */
export function defineWorkflow<const Name extends string>(definition: WorkflowInput<Name>): DefinedWorkflow<Name> {
  const { inputSchema, ...rest } = definition;
  const data = inputSchema === undefined ? rest : { ...rest, inputSchema: isZodSchema(inputSchema) ? jsonSchemaOf(inputSchema) : inputSchema };
  const parsed = WorkflowDefinition.safeParse(data);
  if (!parsed.success) {
    const name = typeof definition.name === 'string' && definition.name !== '' ? definition.name : undefined;
    throw new InvalidWorkflowError(name, describeWorkflowIssues(parsed.error.issues));
  }
  // The schema checked every step; their names are the literals the caller wrote.
  return parsed.data as DefinedWorkflow<Name>;
}

/** The JSON Schema of a zod schema, every definition inlined (a workflow file has no place for `$ref` targets). */
function jsonSchemaOf(schema: z.ZodTypeAny): JsonObject {
  return zodToJsonSchema(schema, { target: 'jsonSchema7', $refStrategy: 'none' }) as JsonObject;
}

/** Read by shape, not `instanceof`: the caller's zod may be another copy than this package's. */
function isZodSchema(value: JsonObject | z.ZodTypeAny): value is z.ZodTypeAny {
  return typeof (value as { safeParse?: unknown }).safeParse === 'function' && '_def' in value;
}
