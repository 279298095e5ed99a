import { runAgent } from '@sas/agent';
import { loadConfig } from '@sas/runtime';
import { HttpAgentConfig } from './http-agent-config';
import { createHttpRemoteCall } from './http-remote-call';

/**
 * Wires the HTTP agent: its config → one agent (`AGENT`) whose every operation is an HTTP call
 * to `REMOTE_URL` → the `@sas/agent` runtime (bus, breakers, probes, shutdown).
 */
async function main(): Promise<void> {
  const config = loadConfig(HttpAgentConfig, process.env);
  const call = createHttpRemoteCall(config.REMOTE_URL, { timeoutMs: config.REMOTE_CALL_TIMEOUT_MS });
  await runAgent({ agents: [{ name: config.AGENT, operations: {}, otherOperations: call }] });
}

main().catch((e: unknown) => {
  // The logger may not exist yet (bad config): stderr is the only place left to say why.
  process.stderr.write(`agent failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
