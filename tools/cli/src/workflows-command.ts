import { readFileSync } from 'node:fs';
import { checkWorkflows } from './check-workflows';
import { runLiveCheck, type LiveCheckEnv } from './live-check';

/** Usage of the `workflows` subcommand, part of the CLI's help. */
export const WORKFLOWS_USAGE = `  workflows check FILE               validate a WORKFLOWS_FILE: each bad field with its path, or a line per workflow
  workflows check [FILE] --live      also: each step operation and compensation no live agent serves`;

/**
 * `sas workflows check FILE [--live]`: reads the file and prints what {@link checkWorkflows} found;
 * needs no running system. With `--live` (FILE optional: the services' workflows then) it also
 * asks MongoDB which agents are live and prints what none serves ({@link runLiveCheck}). Returns
 * the exit code: 0 when all is well, 1 otherwise.
 */
export async function runWorkflowsCommand(action: string | undefined, file: string | undefined, out: (line: string) => void, live?: LiveCheckEnv): Promise<number> {
  if (action !== 'check') throw new Error(`workflows needs an action: check (got '${action ?? ''}')\n${WORKFLOWS_USAGE}`);
  if (!file && !live) throw new Error('workflows check needs a file: sas workflows check workflows.json (or --live for the services\' WORKFLOWS_FILE)');
  let text: string | undefined;
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`Cannot read workflows file '${file}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const { ok, lines } = checkWorkflows(text, file);
    for (const line of lines) out(line);
    if (!ok) {
      out(`${file}: ${lines.length} problem(s); the services would refuse to start with it`);
      return 1;
    }
  }
  return live ? runLiveCheck(live, text, out) : 0;
}
