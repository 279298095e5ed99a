/** No scheduler answered an operator command in time; it may still be applied later. */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
  constructor(
    readonly command: string,
    readonly processId: string,
    readonly timeoutMs: number,
    where: { redisUrl: string; prefix: string },
  ) {
    super(
      `No scheduler answered '${command} ${processId}' within ${timeoutMs} ms; are schedulers running on ${where.redisUrl} with QUEUE_PREFIX=${where.prefix}? ` +
        'The command stays queued and may still be applied: look at the process before sending it again.',
    );
  }
}
