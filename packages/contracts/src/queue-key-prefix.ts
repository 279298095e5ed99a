/**
 * The BullMQ `prefix` of one queue: the system's `QUEUE_PREFIX` followed by the queue's own Redis
 * Cluster hash tag, so a queue's keys are `<QUEUE_PREFIX>:{<queue>}:<queue>:<key>`.
 *
 * BullMQ's scripts touch several keys of one queue at once, so a queue's keys must share a hash
 * slot; no script of ours touches two queues, so different queues may sit in different slots,
 * and with one tag each they spread over a cluster's shards (decision 55). The same layout is used
 * on a single Redis, so moving to a cluster changes no key name. Every `new Queue` and
 * `new Worker` of the system takes its prefix from here: a queue opened with another prefix is a
 * different, empty queue.
 */
export function queueKeyPrefix(prefix: string, queue: string): string {
  return `${prefix}:{${queue}}`;
}

/** Why a QUEUE_PREFIX cannot be used, or undefined: a hash tag in it would put every queue in one slot. */
export function queuePrefixProblem(prefix: string): string | undefined {
  if (prefix === '') return 'QUEUE_PREFIX is empty; set a name such as sas';
  if (/[{}]/.test(prefix)) {
    return `QUEUE_PREFIX '${prefix}' contains '{' or '}'; leave the hash tag out: every queue gets its own (decision 55), and a tag in the prefix would put every queue in one slot of a Redis Cluster`;
  }
  if (prefix.includes(':')) return `QUEUE_PREFIX '${prefix}' contains ':', BullMQ's key separator; use letters, digits, '.', '_' or '-'`;
  return undefined;
}
