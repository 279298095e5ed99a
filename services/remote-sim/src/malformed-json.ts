/**
 * Stands in for a request body that was not valid JSON, so the simulator can answer (and count)
 * it as a bad request like any other invalid body, instead of the HTTP layer answering on its own.
 */
export class MalformedJson {
  constructor(readonly reason: string) {}
}

/** Parses a request body; an empty body is `undefined`, unparseable text a {@link MalformedJson}. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    return new MalformedJson(err instanceof Error ? err.message : String(err));
  }
}
