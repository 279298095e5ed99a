// @ts-check
'use strict';

/**
 * Everything the benchmark started (Redis, MongoDB, service processes, the responder, queue
 * connections), released last-in first-out. It exists so that a normal end, a failed phase and a
 * Ctrl-C all take the same path, and no child process outlives the run.
 */
class CleanupStack {
  /** @param {(line: string) => void} say where progress lines go */
  constructor(say) {
    this.say = say;
    /** @type {{ name: string, close: () => Promise<unknown> }[]} */
    this.entries = [];
    /** @type {Promise<void>} every release so far; each {@link CleanupStack.runAll} chains onto it */
    this.running = Promise.resolve();
    /** @type {NodeJS.Signals | undefined} the signal that interrupted the run, if one did */
    this.interruptedBy = undefined;
    this.abort = new AbortController();
  }

  /** Aborted on SIGINT/SIGTERM: phases hand it to their waits so they stop at once. */
  get signal() {
    return this.abort.signal;
  }

  /**
   * Registers `close` to run at cleanup; returns a function that runs it now (once) and forgets
   * it, for a phase that releases what it started before the next phase begins. After an
   * interruption, whatever is registered is released right away: a phase that was still starting
   * processes when Ctrl-C came must not leave them behind.
   *
   * @param {string} name what is released, for the log when releasing fails
   * @param {() => Promise<unknown>} close
   * @returns {() => Promise<void>}
   */
  push(name, close) {
    const entry = { name, close };
    this.entries.push(entry);
    if (this.interruptedBy) void this.runAll();
    return async () => {
      const index = this.entries.indexOf(entry);
      if (index < 0) return this.running; // already being released by runAll: wait for it
      this.entries.splice(index, 1);
      await this.release(entry);
    };
  }

  /** Throws when the run was interrupted, so the next phase does not start. */
  throwIfInterrupted() {
    if (this.interruptedBy) throw new Error(`interrupted by ${this.interruptedBy}`);
  }

  /** Releases everything still registered, newest first; safe to call any number of times, never throws. */
  runAll() {
    this.running = this.running.then(async () => {
      while (this.entries.length > 0) {
        const entry = this.entries.pop();
        if (entry) await this.release(entry);
      }
    });
    return this.running;
  }

  /**
   * On SIGINT/SIGTERM: aborts {@link CleanupStack.signal} and releases everything at once; the
   * main flow then stops at its next wait and exits with 130 (143 for SIGTERM). A second signal
   * is reported and ignored: the stop calls already escalate to SIGKILL after their grace period.
   */
  installSignalHandlers() {
    /** @param {NodeJS.Signals} signal */
    const onSignal = (signal) => {
      if (this.interruptedBy) {
        this.say(`${signal} again: still stopping what the benchmark started, please wait`);
        return;
      }
      this.interruptedBy = signal;
      this.say(`${signal}: stopping everything the benchmark started ...`);
      this.abort.abort(new Error(`interrupted by ${signal}`));
      void this.runAll();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  /** @param {{ name: string, close: () => Promise<unknown> }} entry */
  async release(entry) {
    try {
      await entry.close();
    } catch (error) {
      this.say(`could not stop ${entry.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

module.exports = { CleanupStack };
