import type { ProcessDocument } from '@sas/contracts';
import { MongoProcessStore, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';

/** Prints a process (found by process id or order id) and its history. Returns false when not found. */
export async function showProcess(env: CliEnv, id: string, out: (line: string) => void): Promise<boolean> {
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    const store = new MongoProcessStore(connection.db);
    const doc: ProcessDocument | null = (await store.get(id)) ?? (await store.getByOrderId(id));
    if (!doc) {
      out(`No process with id or orderId '${id}' in ${env.mongoDb}.`);
      return false;
    }
    out(`process ${doc._id}  order ${doc.orderId}  ${doc.workflow} v${doc.workflowVersion}`);
    out(`state ${doc.state} (${doc.mode})  attempt ${doc.attempt}  failures ${doc.failureCount}  lockedBy ${doc.lockedBy ?? '-'}`);
    if (doc.reason) out(`reason: ${doc.reason}`);
    for (const [i, s] of doc.steps.entries()) {
      out(`  ${i === doc.currentStep ? '>' : ' '} ${s.name.padEnd(20)} ${s.state.padEnd(12)} dispatches ${s.dispatches}${s.error ? `  error: ${s.error}` : ''}`);
    }
    out('history:');
    for (const h of await store.history(doc._id)) {
      out(`  ${h.at.toISOString()}  ${(h.from ?? '-').padEnd(12)} -> ${h.to.padEnd(12)} #${h.attempt}  ${h.who}: ${h.why}`);
    }
    return true;
  } finally {
    await connection.close();
  }
}
