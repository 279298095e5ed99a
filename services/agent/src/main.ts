import { runAgent } from '@sas/agent';
import { loadConfig } from '@sas/runtime';
import { httpAgent, readMappingFile } from './http-agent';
import { HttpAgentConfig } from './http-agent-config';
import { keepAliveFetch } from './keep-alive-fetch';
import { remoteSimMapping } from './remote-sim-mapping';

/**
 * Wires the HTTP agent: its config → the mapping (`AGENT_MAPPING_FILE`, else remote-sim's dialect)
 * → one agent (`AGENT`) whose operations are HTTP calls → the `@sas/agent` runtime (bus,
 * breakers, probes, shutdown).
 */
async function main(): Promise<void> {
  const config = loadConfig(HttpAgentConfig, process.env);
  const mapping = config.AGENT_MAPPING_FILE ? readMappingFile(config.AGENT_MAPPING_FILE) : remoteSimMapping;
  // REMOTE_URL is a base: `{env.REMOTE_URL}/services/...` must not get a double slash.
  const env = { ...process.env, REMOTE_URL: config.REMOTE_URL.replace(/\/+$/, '') };
  // node:http with keep-alive costs about a third of undici's fetch per call (decision 60).
  const fetch = keepAliveFetch();
  // Several agents (AGENT=a+b) share this process, its connections and its HTTP client (decision 131).
  const agents = config.AGENT.split('+').map((name) => httpAgent(name, mapping, { env, timeoutMs: config.REMOTE_CALL_TIMEOUT_MS, fetch }));
  await runAgent({ agents });
}

main().catch((e: unknown) => {
  // The logger may not exist yet (bad config): stderr is the only place left to say why.
  process.stderr.write(`agent failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
