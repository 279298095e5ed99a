import { MongoProcessStore, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';
import { resolveProcess, type ProcessIdKind } from './resolve-process';
import { renderStepLines } from './step-lines';
import { terminalSafe } from './terminal-text';

/**
 * `sas status`: prints which process matched (by process id or orderId, see
 * {@link resolveProcess}), then its state, steps and history. Returns false when none matched.
 */
export async function showProcess(env: CliEnv, id: string, print: (line: string) => void, only?: ProcessIdKind): Promise<boolean> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    const store = new MongoProcessStore(connection.db);
    const resolved = await resolveProcess(store, id, `database ${env.mongoDb}`, only);
    if (!resolved.found) {
      out(resolved.message);
      return false;
    }
    const { doc } = resolved;
    out(resolved.line);
    out(`process ${doc._id}  order ${doc.orderId}  ${doc.workflow} v${doc.workflowVersion}`);
    out(`state ${doc.state} (${doc.mode})  attempt ${doc.attempt}  failures ${doc.failureCount}  lockedBy ${doc.lockedBy ?? '-'}`);
    if (doc.reason) out(`reason: ${doc.reason}`);
    for (const line of renderStepLines(doc)) out(line);
    out('history:');
    for (const h of await store.history(doc._id)) {
      out(`  ${h.at.toISOString()}  ${(h.from ?? '-').padEnd(12)} -> ${h.to.padEnd(12)} #${h.attempt}  ${h.who}: ${h.why}`);
    }
    return true;
  } finally {
    await connection.close();
  }
}
