import type { CollectionJournal, StorageJournal } from './storage-journal';

/** The journal of a collection kept only in memory: records nothing. */
export const IN_MEMORY_COLLECTION_JOURNAL: CollectionJournal = {
  documentWritten: () => undefined,
  documentRemoved: () => undefined,
  indexCreated: () => undefined,
  indexDropped: () => undefined,
  dropped: () => undefined,
};

/**
 * The journal of the in-memory mode (no `dataDir`): every method does nothing, so the in-memory
 * server pays one empty call per change and never loads `node:sqlite`.
 */
export const IN_MEMORY_JOURNAL: StorageJournal = {
  collectionCreated: () => IN_MEMORY_COLLECTION_JOURNAL,
  databaseDropped: () => undefined,
  sessionRecorded: () => undefined,
  sessionForgotten: () => undefined,
  commit: () => undefined,
  close: () => undefined,
};
