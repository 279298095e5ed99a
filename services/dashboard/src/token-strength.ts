/** Least randomness a dashboard token must carry: 128 bits, e.g. 32 hex or 22 base64url characters. */
export const MIN_TOKEN_BITS = 128;

/** How to make a good token, named in every refusal. */
export const TOKEN_RECIPE =
  "generate one with: openssl rand -hex 16 (or node -e \"console.log(require('node:crypto').randomBytes(16).toString('base64url'))\")";

/** A token's estimated strength and, when too weak, why. */
export interface TokenStrength {
  /** Length × log2 of the alphabet the token draws from: an upper bound on its randomness. */
  bits: number;
  /** Why the token is refused, or `undefined` when it is strong enough. */
  weakness?: string;
}

const HEX = /^[0-9a-f]+$|^[0-9A-F]+$/;
/**
 * Words of chosen passwords. A random hex token cannot hold one (they need letters past f); a
 * random 22-character base64url one about once in 300,000 (made again). Placeholder words
 * (`CHANGE-ME`) are not refused: the deployment examples' placeholders must pass the schema (see
 * test/static/k8s-manifests.test.ts), so replacing them is the deployer's job.
 */
const WORDS = /password|passwd|secret|letmein|qwerty|admin/i;
const BASE64URL = /^[0-9A-Za-z_-]+$/;

/** Size of the alphabet a token's characters suggest: hex, or the union of the classes it uses. */
function alphabetSize(token: string): number {
  if (HEX.test(token)) return 16;
  // Both letter cases in a token of the base64url alphabet: count the whole alphabet, since a
  // random base64url token leaves out '-', '_' or the digits often enough that counting only
  // the classes present would refuse good tokens.
  if (BASE64URL.test(token) && /[a-z]/.test(token) && /[A-Z]/.test(token)) return 64;
  let size = 0;
  if (/[0-9]/.test(token)) size += 10;
  if (/[a-z]/.test(token)) size += 26;
  if (/[A-Z]/.test(token)) size += 26;
  if (/[-_]/.test(token)) size += 2;
  if (/[^0-9a-zA-Z_-]/.test(token)) size += 30;
  return size;
}

/** The longest substring of at least `min` characters that occurs twice (overlaps allowed), if any. */
function repeatedSubstring(token: string, min: number): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i + min <= token.length; i++) {
    const part = token.slice(i, i + min);
    if (seen.has(part)) return part;
    seen.add(part);
  }
  return undefined;
}

/** Whether `min` consecutive characters step by the same ±1 (`123456`, `abcdef`, `fedcba`). */
function hasSequence(token: string, min: number): boolean {
  let run = 1;
  for (let i = 1; i < token.length; i++) {
    const step = token.charCodeAt(i) - token.charCodeAt(i - 1);
    const previous = i > 1 ? token.charCodeAt(i - 1) - token.charCodeAt(i - 2) : step;
    run = Math.abs(step) === 1 && step === previous ? run + 1 : Math.abs(step) === 1 ? 2 : 1;
    if (run >= min) return true;
  }
  return false;
}

/**
 * Estimates whether a token was drawn at random with at least {@link MIN_TOKEN_BITS} bits. The
 * estimate is length × log2(alphabet), refused below the bound; on top of it, patterns a random
 * source practically never produces but people do are refused: few distinct characters
 * (`aaaa…`), a repeated run of 6 characters (`passwordpassword…`), an ascending or descending
 * run of 6 (`12345678`, `abcdef`), or a password word (`…password…`, `…secret…`). For `openssl rand -hex 16` those patterns appear in fewer
 * than 1 in 10,000 tokens (a refused one is simply generated again).
 */
export function tokenStrength(token: string): TokenStrength {
  const bits = Math.floor(token.length * Math.log2(Math.max(alphabetSize(token), 1)));
  if (bits < MIN_TOKEN_BITS) {
    return { bits, weakness: `it is ${token.length} characters carrying at most ${bits} bits; a token needs at least ${MIN_TOKEN_BITS} bits (32 hex or 22 base64url characters from a random source)` };
  }
  const distinct = new Set(token).size;
  if (distinct < Math.min(8, token.length / 2)) return { bits, weakness: `it uses only ${distinct} distinct characters, which no random source of that length produces` };
  const repeated = repeatedSubstring(token, 6);
  if (repeated !== undefined) return { bits, weakness: 'it repeats a run of 6 or more characters, as a word or pattern typed twice does' };
  if (hasSequence(token, 6)) return { bits, weakness: 'it holds a run like 123456 or abcdef, which a random source practically never produces' };
  const word = WORDS.exec(token)?.[0];
  if (word !== undefined) return { bits, weakness: `it holds the word '${word.toLowerCase()}', as a chosen password does` };
  return { bits };
}
