/** A signal that cannot be sent as written (bad name, data too large, ...); nothing was sent. */
export class InvalidSignalError extends Error {
  override readonly name = 'InvalidSignalError';
  constructor(
    readonly signal: string,
    readonly issues: readonly string[],
  ) {
    super(`Signal '${signal}' is invalid and was not sent: ${issues.join('; ')}`);
  }
}
