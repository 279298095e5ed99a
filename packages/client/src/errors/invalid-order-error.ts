/** `SasClient.submit` refused an order that the submission service would reject; nothing was sent. */
export class InvalidOrderError extends Error {
  override readonly name = 'InvalidOrderError';
  constructor(
    /** The order's id, when it had a readable one. */
    readonly orderId: string | undefined,
    /** One line per problem: `payload.amount: Expected number, received string`. */
    readonly issues: readonly string[],
  ) {
    super(`Order ${orderId === undefined ? '(no orderId)' : `'${orderId}'`} is not valid, nothing was sent: ${issues.join('; ')}. Fix these fields and submit it again.`);
  }
}
