/**
 * Ends the CLI quietly when whoever reads its output goes away (`sas processes | head -1`): Node
 * ignores SIGPIPE, so the next write fails with EPIPE, and an unhandled stream error would print
 * a stack trace. An operator who closed the pipe has what they wanted: `stop` is called once (the
 * CLI exits 0, or lets a long-running command stop its services); any other stream error is
 * rethrown, as Node would.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WritableStream[], stop: () => void): void {
  let stopped = false;
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (stopped) return;
      stopped = true;
      stop();
    });
  }
}
