import type { JsonObject } from '@sas/contracts';
import { createRequire } from 'node:module';
import { celMessage } from './cel-message';
import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };

// The CEL library ships as an ES module only; Node (22.12 and later) loads it with require().
const cel = createRequire(__filename)('@marcbachmann/cel-js') as typeof Cel;

/** The longest condition (or `until` expression) a workflow may hold: it bounds the cost of one evaluation. */
export const MAX_CONDITION_CHARS = 1000;

type Evaluate = (context: Record<string, unknown>) => unknown;

/** Parsed expressions by text: a workflow's few expressions are parsed once, not at every transition. */
const parsed = new Map<string, Evaluate>();
/** Far more than the expressions of every deployed workflow; a bound all the same (workflows check many files). */
const MAX_PARSED = 1000;

function compile(expression: string): Evaluate {
  let fn = parsed.get(expression);
  if (!fn) {
    fn = cel.parse(expression) as Evaluate;
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(expression, fn);
  }
  return fn;
}

/**
 * Why `expression` is not valid CEL, or null when it parses: the parser's message, then the
 * expression's line with a caret under the column (see `celMessage`).
 */
export function celSyntaxProblem(expression: string): string | null {
  try {
    compile(expression);
    return null;
  } catch (e) {
    return `not a valid CEL expression: ${celMessage((e as Error).message, 'lines')}`;
  }
}

/** Why `expression` cannot be a condition, or null when it can: its syntax is checked at load. */
export function conditionProblem(expression: string): string | null {
  return celSyntaxProblem(expression);
}

/** What a condition sees: the order's payload, and every step's result by name (null when it has none). */
export interface ConditionInput {
  payload: JsonObject;
  results: Record<string, JsonObject | null>;
  /** A signal step's `rejectWhen` also sees the signal's data. */
  data?: JsonObject | null;
}

/** A condition's answer: run the entry or not, or why it could not be decided. */
export type ConditionOutcome = { ok: true; value: boolean } | { ok: false; error: string };

/**
 * Evaluates a condition, synchronously and without I/O (CEL has no loops or calls out), so the
 * transition stays pure. A CEL error or a value other than a boolean is an error, never "false".
 */
export function evaluateCondition(expression: string, input: ConditionInput): ConditionOutcome {
  const outcome = evaluateExpression(expression, input);
  if (!outcome.ok) return outcome;
  if (typeof outcome.value !== 'boolean') return { ok: false, error: `the condition gave ${describe(outcome.value)}, not a boolean` };
  return { ok: true, value: outcome.value };
}

/**
 * Evaluates any CEL expression of a workflow (a wait step's `until`, say) over the same input as a
 * condition; the caller checks the value's type. CEL integers come back as bigint.
 */
export function evaluateExpression(expression: string, input: ConditionInput): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    const context = input.data === undefined ? { payload: input.payload, results: input.results } : { payload: input.payload, results: input.results, data: input.data };
    return { ok: true, value: compile(expression)(context) };
  } catch (e) {
    return { ok: false, error: celMessage((e as Error).message, 'one-line') };
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `the int ${value}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 50))}`;
  return `a value of type ${Array.isArray(value) ? 'list' : typeof value}`;
}
