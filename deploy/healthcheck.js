'use strict';
// Docker HEALTHCHECK of the sas image (deploy/Dockerfile): GET /healthz and exit 0 on a 2xx.
//
// Which port: PROBE_PORT (the runtime's probe server, on PROBE_HOST: loopback unless set, 0.0.0.0 in the deploy examples) when it is a
// fixed port; otherwise PORT (remote-sim serves /healthz on its own HTTP port, bound on HOST).
// With neither, there is nothing to ask, so it reports healthy and says why: a crashed process
// already stops the container. Plain CommonJS with global fetch (Node 18 and later), nothing to install.

const TIMEOUT_MS = 3000;

function fixedPort(value) {
  const port = Number(value);
  return Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined;
}

function target(env) {
  const probePort = fixedPort(env.PROBE_PORT);
  if (probePort !== undefined) return { host: '127.0.0.1', port: probePort };
  const port = fixedPort(env.PORT);
  if (port === undefined) return undefined;
  const bound = env.HOST;
  // A wildcard bind answers on loopback; a specific address only on itself.
  const host = bound === undefined || bound === '' || bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
  return { host: host.includes(':') ? `[${host}]` : host, port };
}

async function main() {
  const where = target(process.env);
  if (where === undefined) {
    process.stdout.write('healthcheck: neither PROBE_PORT nor PORT is a fixed port; set PROBE_PORT to check /healthz\n');
    return 0;
  }
  const url = `http://${where.host}:${where.port}/healthz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.ok) return 0;
    process.stderr.write(`healthcheck: ${url} answered ${res.status}\n`);
    return 1;
  } catch (err) {
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    process.stderr.write(`healthcheck: ${url} unreachable: ${reason}\n`);
    return 1;
  }
}

main().then((code) => process.exit(code));
