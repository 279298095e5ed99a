import type { ProcessDocument } from '@sas/contracts';

/** How an operator named a process: either way (`status X`), or only one way (`--process-id`, `--order-id`). */
export type ProcessIdKind = 'processId' | 'orderId';

/** What a process is looked up by: a process store's two reads. */
export interface ProcessLookup {
  get(processId: string): Promise<ProcessDocument | null>;
  getByOrderId(orderId: string): Promise<ProcessDocument | null>;
}

/** The outcome of {@link resolveProcess}: found (and how), or why not, said so an operator knows what to type. */
export type ProcessResolution =
  | { found: true; doc: ProcessDocument; matchedBy: ProcessIdKind; line: string }
  | { found: false; message: string };

/**
 * Finds the process an operator named by process id or orderId. Both are looked up (unless `only`
 * says which the text is); a text that is one process's id and another process's orderId is
 * refused as ambiguous rather than guessed, and the answer says which was matched, so the operator
 * never acts on a process they did not mean.
 */
export async function resolveProcess(lookup: ProcessLookup, text: string, where: string, only?: ProcessIdKind): Promise<ProcessResolution> {
  const [byId, byOrderId] = await Promise.all([
    only === 'orderId' ? null : lookup.get(text),
    only === 'processId' ? null : lookup.getByOrderId(text),
  ]);
  if (byId && byOrderId && byId._id !== byOrderId._id) {
    return {
      found: false,
      message:
        `'${text}' is ambiguous: it is the process id of ${byId._id} (order ${byId.orderId}) and the orderId of process ${byOrderId._id}; ` +
        `say which with --process-id ${text} or --order-id ${text}`,
    };
  }
  if (byId) return { found: true, doc: byId, matchedBy: 'processId', line: `matched process id ${byId._id} (order ${byId.orderId})` };
  if (byOrderId) return { found: true, doc: byOrderId, matchedBy: 'orderId', line: `matched orderId ${text} → process ${byOrderId._id}` };
  const what = only === 'processId' ? 'process id' : only === 'orderId' ? 'orderId' : 'process id or orderId';
  return {
    found: false,
    message: `no process ${text}: no process has the ${what} '${text}' in ${where}; check it (sas processes lists them), or it was removed after its retention`,
  };
}
