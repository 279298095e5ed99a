const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Makes text safe inside HTML element content and quoted attribute values. The page's server-side
 * values (instance id, queue prefix) come from the environment, which an operator may set to
 * anything; escaping them keeps the page's markup (and its content security policy) intact.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}
