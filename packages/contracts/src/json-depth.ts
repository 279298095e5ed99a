/**
 * Deepest nesting of a payload we accept. MongoDB stores at most 100 levels of nesting in a
 * document; the process document wraps the payload, and steps' results nest further down, so an
 * order keeps well clear of the limit. A deeper payload is refused at submission, where the
 * sender can be told, instead of breaking reads of the stored process later.
 */
export const MAX_PAYLOAD_DEPTH = 64;

/**
 * Whether `value` nests objects and arrays more than `limit` levels deep (the value itself, if an
 * object or array, is level 1). Iterative and stops at the first level past the limit, so even a
 * payload nested a million levels cannot overflow the stack of the check itself.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
  }
  return false;
}
