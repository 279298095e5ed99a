import type { JsonObject } from '@sas/contracts';
import { lookup } from './template';

/** Where a step's result is in an answer: the object at `resultPath` (absent: the whole), plus `resultFields`. */
export interface ResultExtraction {
  resultPath?: string | undefined;
  resultFields: Readonly<Record<string, string>>;
}

/**
 * The step's result read from `json` (a success body, or a record a lookup found), or what is
 * missing from it. Pure; the caller decides what a missing result means (an unknown outcome).
 */
export function stepResultOf(json: unknown, extraction: ResultExtraction): { result: JsonObject } | { missing: string[] } {
  const result = extraction.resultPath === undefined ? json : lookup(json, extraction.resultPath);
  const missing: string[] = [];
  if (!isObject(result)) missing.push(`${extraction.resultPath ?? '(the body)'}: not an object`);
  const extras: JsonObject = {};
  for (const [field, path] of Object.entries(extraction.resultFields)) {
    const value = lookup(json, path);
    if (value === undefined) missing.push(`${path}: missing`);
    else extras[field] = value;
  }
  if (missing.length || !isObject(result)) return { missing };
  return { result: { ...result, ...extras } };
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
