import { randomBytes } from 'node:crypto';
import { TOKEN_RECIPE, tokenStrength } from './token-strength';

describe('tokenStrength', () => {
  it.each([
    ['the k8s example Secret’s placeholder', 'CHANGE-ME-to-a-random-token', /the deployment examples' placeholder \(CHANGE-ME…\), not a token; replace it/],
    ['a placeholder with a word changed', 'change-me-to-something-long-and-random', /placeholder/],
    ['a name made of words', 'my-sas-dashboard-token-for-prod', /made mostly of dictionary words/],
    ['a passphrase', 'correct-horse-battery-staple-xyz', /zxcvbn/],
    ['one character repeated', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', /zxcvbn\) guesses it in about 10\^\d+ tries.*repeat/],
    ['a word typed over and over', 'passwordpasswordpasswordpassword', /zxcvbn/],
    ['a word and a keyboard run', 'Password1234567890qwertyuiopasdf', /zxcvbn/],
    ['a pattern typed twice', 'k3Xq9Zt2Lm7Rk3Xq9Zt2Lm7R', /zxcvbn.*repeat/],
    ['a 16-character password', 'password12345678', /carrying at most 82 bits/],
  ])('refuses %s, saying why', (_what, token, why) => {
    expect(tokenStrength(token).weakness).toMatch(why);
  });

  it('accepts tokens from openssl rand -base64 32, -hex 32 and -hex 16, and randomBytes base64url', () => {
    const made = [
      ...Array.from({ length: 2 }, () => randomBytes(32).toString('base64')),
      randomBytes(32).toString('hex'),
      ...Array.from({ length: 2 }, () => randomBytes(16).toString('hex')),
      ...Array.from({ length: 2 }, () => randomBytes(16).toString('base64url')),
    ];
    expect(made.map((t) => [t, tokenStrength(t).weakness])).toEqual(made.map((t) => [t, undefined]));
  });

  it('accepts a long random token even where zxcvbn finds patterns, when it still needs 2^128 guesses', () => {
    // openssl rand -hex 32 output that zxcvbn puts 10^6 below brute force (dates, repeats, sequences), but at 10^58.
    expect(tokenStrength('319733b6bce931bc1b8b2e5d02be0075252ea6ea6cdeb0d7512f5facb50b905f').weakness).toBeUndefined();
  });

  it('names openssl rand -base64 32 as the way to make one', () => {
    expect(TOKEN_RECIPE).toContain('openssl rand -base64 32');
  });
});
