/**
 * Whether a process with this pid still exists: signal 0 checks without delivering anything. The
 * stack tests use it to show that stopping a server or service leaves no process behind.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
