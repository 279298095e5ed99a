import type { z } from 'zod';
import { ConfigError } from './errors/config-error';

/**
 * Parses the environment with a service's zod schema. Call it from `main.ts`, never at import
 * time, so tests can pass their own environment.
 *
 * @throws ConfigError naming every bad variable and what was received.
 */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data as z.infer<S>;
  const issues = parsed.error.issues.map((i) => {
    const name = i.path.join('.') || '(environment)';
    const got = i.path.length === 1 ? env[String(i.path[0])] : undefined;
    return `${name}: ${i.message}${got === undefined ? '' : ` (got '${withoutPassword(got)}')`}`;
  });
  return raise(new ConfigError(`Invalid configuration:\n  ${issues.join('\n  ')}`, issues));
}

/** A URL's password is never repeated in a message (REDIS_URL, MONGO_URL). */
function withoutPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

function raise(error: Error): never {
  throw error;
}
