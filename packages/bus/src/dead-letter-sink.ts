import type { DeadLetterKind } from './bus-metrics';

/** What a rejected message is reported with. */
export interface DeadLetterInput {
  queue: string;
  reason: string;
  /** The reason as a metrics label; not stored in the entry. @default 'refused' */
  kind?: DeadLetterKind;
  issues: readonly string[];
  original: unknown;
}

/** Keeps rejected messages; implemented by {@link Bus} on the `dead-letter` queue. */
export interface DeadLetterSink {
  deadLetter(input: DeadLetterInput): Promise<void>;
}
