import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

/** Least randomness a dashboard token must carry: 128 bits, e.g. 32 hex or 22 base64url characters. */
export const MIN_TOKEN_BITS = 128;

/** How to make a good token, named in every refusal. */
export const TOKEN_RECIPE = 'generate one with: openssl rand -base64 32 (or openssl rand -hex 32)';

/**
 * Placeholders the deployment examples and docs show in place of a token (deploy/k8s/secret.example.yaml),
 * refused by name: one copied unchanged would otherwise pass as a long, varied token.
 */
export const TOKEN_PLACEHOLDERS: readonly string[] = ['CHANGE-ME-to-a-random-token', 'CHANGE-ME', '<token>', 'your-token-here'];

/** A token's estimated strength and, when too weak, why. */
export interface TokenStrength {
  /** Length × log2 of the alphabet the token draws from: an upper bound on its randomness. */
  bits: number;
  /** Why the token is refused, or `undefined` when it is strong enough. */
  weakness?: string;
}

const HEX = /^[0-9a-f]+$|^[0-9A-F]+$/;
const BASE64URL = /^[0-9A-Za-z_-]+$/;
/** What people put between the words of a chosen token (`my-sas-token`, `prod_token`, `a.b`, base64's `+/`). */
const SEPARATORS = /[-_.+/=:\s]+/;
/**
 * How many orders of magnitude below a brute-force search of its length (zxcvbn counts 10 guesses a
 * character) zxcvbn may put a token. zxcvbn finds digit runs and dates in random hex, so a random
 * `openssl rand -hex 32` falls up to about 3 below; a repeated, keyboard or word-built token falls
 * 5 and more (`correct-horse-battery-staple-xyz` 7.6, `passwordpassword…` 28).
 */
const MAX_GUESS_DEFICIT = 5;
/**
 * 2^128 in zxcvbn's units: a token it cannot guess in fewer passes, whatever patterns it found.
 * Long random hex (`openssl rand -hex 32`) holds enough digit runs and dates to fall 5 below brute
 * force about once in 300 tokens, yet zxcvbn still needs 10^55 tries and more for it.
 */
const ENOUGH_GUESSES_LOG10 = MIN_TOKEN_BITS * Math.log10(2);

let estimator: ZxcvbnFactory | undefined;
/** zxcvbn with the common (passwords, names, keyboards) and English dictionaries, built on first use. */
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...english.dictionary }, graphs: common.adjacencyGraphs, translations: english.translations });
  return estimator;
}

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

/** Whether zxcvbn reads this part of a token as one dictionary word (or a word reversed or in l33t). */
function isWord(part: string): boolean {
  const { sequence } = zxcvbn().check(part);
  return sequence.length === 1 && sequence[0]!.pattern === 'dictionary';
}

/**
 * Why a token would be guessed far sooner than a random one of its length, by zxcvbn
 * (`@zxcvbn-ts/core`, the maintained port of Dropbox's estimator): its estimate falls well below
 * brute force (repeats, keyboard walks, sequences, dates, common passwords), or most of its
 * characters are dictionary words between separators (`my-sas-dashboard-token-for-prod`).
 */
function guessable(token: string): string | undefined {
  const { guessesLog10, sequence } = zxcvbn().check(token);
  if (guessesLog10 >= ENOUGH_GUESSES_LOG10) return undefined;
  if (token.length - guessesLog10 > MAX_GUESS_DEFICIT) {
    const found = [...new Set(sequence.filter((m) => m.pattern !== 'bruteforce').map((m) => m.pattern))].join(', ');
    return `a password estimator (zxcvbn) guesses it in about 10^${Math.floor(guessesLog10)} tries, far fewer than a random token of its length needs (it finds ${found || 'patterns'} in it)`;
  }
  const parts = token.split(SEPARATORS).filter((p) => p.length >= 2);
  const wordChars = parts.filter(isWord).reduce((sum, p) => sum + p.length, 0);
  if (parts.length >= 2 && wordChars * 2 >= token.replace(new RegExp(SEPARATORS, 'g'), '').length) {
    return 'it is made mostly of dictionary words, as a chosen name or phrase is (zxcvbn finds them), not of random characters';
  }
  return undefined;
}

const memo = new Map<string, TokenStrength>();

/**
 * Estimates whether a token was drawn at random with at least {@link MIN_TOKEN_BITS} bits: the
 * upper bound length × log2(alphabet) must reach it; a deployment example's placeholder
 * ({@link TOKEN_PLACEHOLDERS}) is refused by name; and zxcvbn must find it no easier to guess than
 * random characters (see `guessable`). zxcvbn takes up to a few hundred ms a token, so results
 * are kept for the process (tokens are checked at start).
 */
export function tokenStrength(token: string): TokenStrength {
  const known = memo.get(token);
  if (known) return known;
  const result = estimate(token);
  memo.set(token, result);
  return result;
}

function estimate(token: string): TokenStrength {
  const bits = Math.floor(token.length * Math.log2(Math.max(alphabetSize(token), 1)));
  // Named without repeating it: the message must never quote a token, even a copied placeholder.
  if (TOKEN_PLACEHOLDERS.some((p) => p.toLowerCase() === token.toLowerCase()) || /change-?me/i.test(token)) {
    return { bits, weakness: "it is the deployment examples' placeholder (CHANGE-ME…), not a token; replace it" };
  }
  if (bits < MIN_TOKEN_BITS) {
    return { bits, weakness: `it is ${token.length} characters carrying at most ${bits} bits; a token needs at least ${MIN_TOKEN_BITS} bits (32 hex or 22 base64url characters from a random source)` };
  }
  const why = guessable(token);
  return why === undefined ? { bits } : { bits, weakness: why };
}
