import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { finished } from 'node:stream';

/**
 * Appends one run's output lines to a file, so a failed test leaves a readable log behind. It
 * never throws: a file that cannot be written is reported through `onError` and the process runs
 * on, because losing a log must not kill (or orphan) the process being logged.
 */
export class LogFileWriter {
  private stream: WriteStream | undefined;

  constructor(
    readonly file: string,
    onError: (error: Error) => void,
  ) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      this.stream = createWriteStream(file, { flags: 'a' });
      this.stream.on('error', onError);
    } catch (error) {
      onError(error as Error);
    }
  }

  write(text: string): void {
    this.stream?.write(`${text}\n`);
  }

  /** Resolves once every written line is in the file (or the file failed), so it can be read right away. */
  close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    if (!stream) return Promise.resolve();
    return new Promise((resolve) => {
      finished(stream, () => resolve());
      stream.end();
    });
  }
}
