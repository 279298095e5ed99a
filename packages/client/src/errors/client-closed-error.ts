/** The client was closed while a call was waiting, or a call was made after `close()`. */
export class ClientClosedError extends Error {
  override readonly name = 'ClientClosedError';
  constructor(readonly operation: string) {
    super(`SasClient is closed; '${operation}' cannot run. Create a new client.`);
  }
}
