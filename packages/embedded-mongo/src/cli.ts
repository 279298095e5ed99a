#!/usr/bin/env node
/**
 * Runs the embedded MongoDB as its own process, so every service of a local run reaches the
 * same store over TCP. Prints exactly one JSON line `{"event":"listening","url":...,"port":N}`
 * to stdout when ready (launchers wait for it), writes further log lines as JSON to stderr and
 * exits 0 after closing cleanly on SIGTERM/SIGINT; exits 1 when it cannot start (with --data-dir:
 * the folder is held by another process, or its file is unreadable) or can no longer write its file.
 */
import { HELP, parseCliArgs, wantsHelp } from './cli-args';
import { EmbeddedMongoServer, type EmbeddedMongoOptions } from './embedded-mongo-server';
import type { LogLevel } from './log-sink';

function logLine(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

/**
 * Keeps stderr JSON lines: Node 22 prints an ExperimentalWarning when `node:sqlite` loads (the
 * --data-dir mode). That one warning is dropped; any other is logged as a JSON line instead of
 * Node's plain-text print.
 */
function logWarningsAsJson(): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
    logLine('warn', warning.message, { warning: warning.name });
  });
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
  logWarningsAsJson();
  const options = optionsOrExit();
  const server = new EmbeddedMongoServer({
    ...options,
    log: (level, msg, fields) => {
      if (level !== 'debug' || process.env['EMBEDDED_MONGO_DEBUG'] === '1') logLine(level, msg, fields);
    },
    // The data file can no longer be written: the server is closing, the process must not linger.
    onFatalError: () => {
      void server.close().finally(() => process.exit(1));
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
