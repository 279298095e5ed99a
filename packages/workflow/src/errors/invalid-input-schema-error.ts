/**
 * A workflow's `inputSchema` is not a JSON Schema that compiles. Raised at load, so a service
 * refuses to start with it rather than accept every payload or reject them all.
 */
export class InvalidInputSchemaError extends Error {
  override readonly name = 'InvalidInputSchemaError';

  constructor(
    readonly workflow: string,
    readonly version: number,
    /** What the JSON Schema compiler said, e.g. `strict mode: unknown keyword: "requried"`. */
    readonly detail: string,
  ) {
    super(`Workflow '${workflow}' v${version} has an invalid inputSchema: ${detail}; fix the schema (JSON Schema draft-07) and load again`);
  }
}
