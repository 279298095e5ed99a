import { SasClient, type Submitted } from '@sas/client';
import type { CliEnv } from './cli-env';

/**
 * Validates and submits one order through `@sas/client`, as an application would; throws an
 * `InvalidOrderError` naming every invalid field when it is invalid (nothing is sent then).
 */
export async function submitOrder(
  env: CliEnv,
  input: { orderId: string; workflow: string; payload: Record<string, unknown>; replyTo?: string },
): Promise<Submitted> {
  const client = new SasClient({ redisUrl: env.redisUrl, prefix: env.prefix });
  try {
    return await client.submit(input);
  } finally {
    await client.close();
  }
}
