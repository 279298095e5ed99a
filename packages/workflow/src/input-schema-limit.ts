/**
 * Bound on a workflow's `inputSchema`, serialised: a schema is compiled to code at load, so a huge
 * one would slow every service's start; 32 KiB describes any real order payload many times over.
 */
export const MAX_INPUT_SCHEMA_BYTES = 32 * 1024;
