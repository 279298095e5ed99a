// @ts-check
'use strict';

/**
 * @typedef {object} WaitUntilOptions
 * @property {number} timeoutMs give up after this long
 * @property {number} intervalMs time between probes
 * @property {string} description what is awaited, for the timeout message
 * @property {AbortSignal} [signal] ends the wait early (Ctrl-C)
 */

/**
 * Polls `probe` until it returns true, with a deadline. The benchmark waits on conditions (a
 * window ended, every reply arrived, every order finished) this way rather than on fixed sleeps,
 * so it proceeds as soon as it can and says what it was waiting for when it cannot. A probe that
 * throws ends the wait with that error.
 *
 * @param {() => boolean | Promise<boolean>} probe
 * @param {WaitUntilOptions} options
 * @returns {Promise<void>}
 */
async function waitUntil(probe, options) {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    if (await probe()) return;
    if (Date.now() > deadline) {
      throw new Error(`Gave up after ${options.timeoutMs} ms waiting for ${options.description}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}

module.exports = { waitUntil };
