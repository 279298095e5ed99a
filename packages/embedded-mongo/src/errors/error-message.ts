/**
 * The message of anything thrown. Not `instanceof Error`: errors raised by `node:sqlite` come from
 * Node's own realm, which is not the caller's under a test runner's VM context.
 */
export function errorMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
