import { readFileSync } from 'node:fs';
import { checkWorkflows } from './check-workflows';

/** Usage of the `workflows` subcommand, part of the CLI's help. */
export const WORKFLOWS_USAGE = `  workflows check FILE               validate a WORKFLOWS_FILE: each bad field with its path, or a line per workflow`;

/**
 * `sas workflows check FILE`: reads the file and prints what {@link checkWorkflows} found. Needs
 * no running system. Returns the exit code: 0 when every definition is valid, 1 otherwise.
 */
export function runWorkflowsCommand(action: string | undefined, file: string | undefined, out: (line: string) => void): number {
  if (action !== 'check') throw new Error(`workflows needs an action: check (got '${action ?? ''}')\n${WORKFLOWS_USAGE}`);
  if (!file) throw new Error('workflows check needs a file: sas workflows check workflows.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`Cannot read workflows file '${file}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const { ok, lines } = checkWorkflows(text, file);
  for (const line of lines) out(line);
  if (!ok) out(`${file}: ${lines.length} problem(s); the services would refuse to start with it`);
  return ok ? 0 : 1;
}
