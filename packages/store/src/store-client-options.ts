import type { MongoClientOptions } from 'mongodb';

/**
 * The query options of a `mongodb://` URL, by lower-cased name. The URL may list several hosts
 * (`h1,h2,h3`), which `new URL` refuses, so only the part after `?` is read.
 */
function urlOptionNames(url: string): Set<string> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return new Set([...new URLSearchParams(query).keys()].map((k) => k.toLowerCase()));
}

/**
 * The driver options every service connects with. What each buys on a replica set:
 *
 * - `w: 'majority'`: a write is acknowledged once a majority of members has it (and, with
 *   MongoDB's default `writeConcernMajorityJournalDefault`, has journaled it), so a failover
 *   cannot roll back a commit the engine already acted on (a dispatch sent, a status published).
 * - `retryWrites`: the driver retries a single-document write once, after selecting the primary
 *   again, when it failed on a step-down or a network error; the server recognises the retry by
 *   its session and transaction number and applies it at most once.
 * - `retryReads`: the same single retry for reads.
 *
 * A URL that sets one of these (`w=1`, `retryWrites=false`, …) keeps its own value: the URL is the
 * operator's word. The read preference is not taken from here: the store's database reads the
 * primary whatever the URL says (see {@link connectStore}).
 */
export function storeClientOptions(url: string): MongoClientOptions {
  const inUrl = urlOptionNames(url);
  return {
    serverSelectionTimeoutMS: 5000,
    maxPoolSize: 20,
    ...(inUrl.has('w') || inUrl.has('journal') || inUrl.has('wtimeoutms') ? {} : { writeConcern: { w: 'majority' } }),
    ...(inUrl.has('retrywrites') ? {} : { retryWrites: true }),
    ...(inUrl.has('retryreads') ? {} : { retryReads: true }),
  };
}
