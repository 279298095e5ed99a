/** A failure that will fail the same way on every retry (validation errors, 4xx, unknown operation). */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
