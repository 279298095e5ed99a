#!/usr/bin/env node
/**
 * Runs the embedded MongoDB as its own process, so every service of a local run reaches the
 * same store over TCP. Prints exactly one JSON line `{"event":"listening","url":...,"port":N}`
 * to stdout when ready (launchers wait for it), writes further log lines as JSON to stderr and
 * exits 0 after closing cleanly on SIGTERM/SIGINT.
 */
import { HELP, parseCliArgs, wantsHelp } from './cli-args';
import { EmbeddedMongoServer, type EmbeddedMongoOptions } from './embedded-mongo-server';
import type { LogLevel } from './log-sink';

function logLine(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

function optionsOrExit(): EmbeddedMongoOptions {
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(`${HELP}\n`);
    return process.exit(0);
  }
  try {
    return parseCliArgs(process.argv.slice(2));
  } catch (error) {
    logLine('error', error instanceof Error ? error.message : String(error));
    return process.exit(2);
  }
}

async function main(): Promise<void> {
  const options = optionsOrExit();
  const server = new EmbeddedMongoServer({
    ...options,
    log: (level, msg, fields) => {
      if (level !== 'debug' || process.env['EMBEDDED_MONGO_DEBUG'] === '1') logLine(level, msg, fields);
    },
  });
  const { url, port } = await server.start();
  process.stdout.write(`${JSON.stringify({ event: 'listening', url, port })}\n`);
  const stop = (signal: string): void => {
    logLine('info', 'shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logLine('error', 'shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  logLine('error', 'embedded MongoDB failed to start', {
    error: error instanceof Error ? error.message : String(error),
  });
  process.exit(1);
});
