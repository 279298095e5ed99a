/**
 * Version of every message and document shape in this package. Bump it when a shape changes;
 * new fields are `.optional()` so messages already in flight still parse.
 */
export const SCHEMA_VERSION = 1;
