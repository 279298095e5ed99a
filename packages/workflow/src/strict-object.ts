import { z } from 'zod';
import { nearestKey } from './nearest-key';

/**
 * `z.object(shape).strict()` whose refusal of an unknown key names the key and the known key it
 * most likely meant: a workflow file with `failureTreshold` next to `failureThreshold` is refused,
 * not run with the typo silently dropped. The issue's path is the object's, so a reader sees
 * `workflows[0].steps[1]: unknown key 'completeBy' (did you mean 'completeByMs'?)`.
 */
export function strictObject<T extends z.ZodRawShape>(shape: T): z.ZodObject<T, 'strict'> {
  const known = Object.keys(shape);
  return z
    .object(shape, {
      errorMap: (issue, ctx) =>
        issue.code === 'unrecognized_keys'
          ? { message: unknownKeysMessage(issue.keys, known) }
          : { message: ctx.defaultError },
    })
    .strict();
}

/** `unknown key 'x' (did you mean 'y'?)`, or the known keys when no key is close to a typo. */
function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  const described = keys.map((k) => {
    const near = nearestKey(k, known);
    return near === undefined ? `'${k}'` : `'${k}' (did you mean '${near}'?)`;
  });
  const guessed = keys.every((k) => nearestKey(k, known) !== undefined);
  const list = guessed ? '' : `; the keys here are ${known.join(', ')}`;
  return `unknown key${keys.length > 1 ? 's' : ''} ${described.join(', ')}${list}`;
}
