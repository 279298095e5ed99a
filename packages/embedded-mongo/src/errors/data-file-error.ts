/**
 * The persisted mode cannot use its data file: another process holds it, it is not a file this
 * server wrote, it is damaged, or a change could not be written to it. The server refuses to
 * start (or stops) rather than answer from a state the file does not hold.
 */
export class DataFileError extends Error {
  /** The data file concerned. */
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataFileError';
    this.file = file;
  }
}
