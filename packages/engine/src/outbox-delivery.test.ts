import { QueueNames, type OutboxEntry, type ProcessDocument } from '@sas/contracts';
import { InMemoryProcessStore } from '@sas/store';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { pino } from 'pino';
import type { Outbox, OutboxSendOptions } from './outbox';
import { OutboxDelivery } from './outbox-delivery';

const T0 = Date.UTC(2030, 0, 1);

/** An outbox whose sends finish only when the test lets them, recording each when it lands. */
class GatedOutbox implements Outbox {
  readonly started: string[] = [];
  readonly landed: string[] = [];
  private readonly gates = new Map<string, () => void>();

  send(_queue: string, _message: unknown, options?: OutboxSendOptions): Promise<void> {
    const id = options?.jobId ?? '?';
    this.started.push(id);
    return new Promise((resolve) => {
      this.gates.set(id, () => {
        this.landed.push(id);
        resolve();
      });
    });
  }

  /** Lets every send started so far land, newest first (the worst order a network could give). */
  releaseAll(): void {
    const open = [...this.gates.values()].reverse();
    this.gates.clear();
    for (const land of open) land();
  }
}

function message(id: string, queue: string): OutboxEntry {
  return { kind: 'message', id, queue, message: { id } };
}

async function owedProcess(store: InMemoryProcessStore, outbox: OutboxEntry[]): Promise<ProcessDocument> {
  const doc = { ...createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: 'app.status', workflow: orderFulfilmentV1, now: T0 }), outbox, outboxSince: new Date(T0) };
  await store.insert(doc);
  return doc;
}

/** Lets the microtasks of the delivery run until it waits on the outbox again. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('OutboxDelivery', () => {
  it('sends the messages of one queue in owed order, other queues and the history alongside, and clears last', async () => {
    const store = new InMemoryProcessStore();
    const outbox = new GatedOutbox();
    const history: OutboxEntry = {
      kind: 'history',
      id: 'p-1.1.h',
      entry: { processId: 'p-1', orderId: 'o-1', who: 'scheduler-1', at: new Date(T0), from: 'Pending', to: 'Processing', why: 'claimed', attempt: 1, step: 'reserve-inventory', deleteTime: null },
    };
    const doc = await owedProcess(store, [history, message('p-1.1.0', 'app.status'), message('p-1.1.1', QueueNames.alerts), message('p-1.1.2', 'app.status')]);
    const delivery = new OutboxDelivery(store, outbox, pino({ level: 'silent' }));

    const delivering = delivery.deliver(doc);
    await settle();
    // The alert does not wait behind the status events; the second status waits for the first.
    expect(outbox.started).toEqual(['p-1.1.0', 'p-1.1.1']);
    expect(await store.history('p-1')).toHaveLength(1);
    outbox.releaseAll();
    await settle();
    expect(outbox.started).toEqual(['p-1.1.0', 'p-1.1.1', 'p-1.1.2']);
    // Nothing is cleared while a send of this delivery is still out.
    expect((await store.get('p-1'))?.outbox).toHaveLength(4);
    outbox.releaseAll();

    expect(await delivering).toBe(true);
    expect(outbox.landed.filter((id) => id !== 'p-1.1.1')).toEqual(['p-1.1.0', 'p-1.1.2']);
    expect(await store.get('p-1')).toMatchObject({ outbox: [], outboxSince: null });
  });

  it('keeps the outbox when one send fails, even after the others landed', async () => {
    const store = new InMemoryProcessStore();
    const doc = await owedProcess(store, [message('p-1.1.0', 'app.status'), message('p-1.1.1', QueueNames.alerts)]);
    const failing: Outbox = { send: (queue) => (queue === QueueNames.alerts ? Promise.reject(new Error('redis down')) : Promise.resolve()) };

    expect(await new OutboxDelivery(store, failing, pino({ level: 'silent' })).deliver(doc)).toBe(false);
    expect((await store.get('p-1'))?.outbox).toHaveLength(2);
  });
});
