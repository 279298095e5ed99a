/**
 * Bounds a Redis call. The client's connections wait through a Redis outage (BullMQ needs that),
 * so without a bound a send would hang for as long as Redis is away. The call itself may still
 * complete later; its late failure is swallowed, since the caller was already told.
 */
export async function withDeadline<T>(call: Promise<T>, deadlineMs: number, onExpiry: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpiry()), deadlineMs);
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
    call.catch(() => undefined);
  }
}
