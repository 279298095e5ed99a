/** The environment does not describe a runnable service; the message says which variable and what to do. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly issues: readonly string[],
  ) {
    super(message);
  }
}
