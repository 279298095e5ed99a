import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid still runs: signal 0 checks without delivering anything. The
 * stack tests use it to show that stopping a server or service leaves no process behind. A zombie
 * does not run: an orphan that was killed stays one until its new parent reaps it, which a
 * container's first process may never do.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state is the field after the command name in parentheses: `pid (comm) S ...`.
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false; // gone between the two looks
  }
}
