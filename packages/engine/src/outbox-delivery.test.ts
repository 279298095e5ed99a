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
  it('sends the messages of one queue in owed order, other queues alongside, and clears last, keeping the history of an unfinished process', async () => {
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
    outbox.releaseAll();
    await settle();
    expect(outbox.started).toEqual(['p-1.1.0', 'p-1.1.1', 'p-1.1.2']);
    // Nothing is cleared while a send of this delivery is still out.
    expect((await store.get('p-1'))?.outbox).toHaveLength(4);
    outbox.releaseAll();

    expect(await delivering).toBe(true);
    expect(outbox.landed.filter((id) => id !== 'p-1.1.1')).toEqual(['p-1.1.0', 'p-1.1.2']);
    // The process has not finished: its history stays owed (decision 62), the messages are gone.
    expect(await store.get('p-1')).toMatchObject({ outbox: [history], outboxSince: null });
    expect(await store.history('p-1')).toEqual([history.entry]);
  });

  it('records the history, with the messages, once the process finished, and empties the outbox', async () => {
    const store = new InMemoryProcessStore();
    const entry = (revision: number, to: 'Processing' | 'Processed', deleteTime: Date | null): OutboxEntry => ({
      kind: 'history',
      id: `p-1.${revision}.h`,
      entry: { processId: 'p-1', orderId: 'o-1', who: 'scheduler-1', at: new Date(T0 + revision), from: 'Pending', to, why: to, attempt: 1, step: null, deleteTime },
    });
    const finishedAt = new Date(T0 + 99);
    const doc = { ...(await owedProcess(store, [entry(1, 'Processing', null), entry(2, 'Processed', finishedAt), message('p-1.2.0', 'app.status')])), deleteTime: finishedAt };
    await store.commit({ ...doc, revision: 1 }, 0);
    const sent: string[] = [];
    const outbox: Outbox = { send: async (_queue, _message, options) => void sent.push(options?.jobId ?? '?') };

    expect(await new OutboxDelivery(store, outbox, pino({ level: 'silent' })).deliver({ ...doc, revision: 1 })).toBe(true);
    expect(sent).toEqual(['p-1.2.0']);
    expect(await store.get('p-1')).toMatchObject({ outbox: [], outboxSince: null });
    // Both entries are in process_events now, dated with the finished process.
    expect((await store.history('p-1')).map((e) => [e.to, e.deleteTime])).toEqual([
      ['Processing', finishedAt],
      ['Processed', finishedAt],
    ]);
  });

  describe('dating a finished history (decision 129)', () => {
    const finishedAt = new Date(T0 + 99);
    const entry = (revision: number, to: 'Processing' | 'Processed', deleteTime: Date | null): OutboxEntry => ({
      kind: 'history',
      id: `p-1.${revision}.h`,
      entry: { processId: 'p-1', orderId: 'o-1', who: 'scheduler-1', at: new Date(T0 + revision), from: 'Pending', to, why: to, attempt: 1, step: null, deleteTime },
    });
    /** The in-memory store, keeping what was inserted into the history and counting the re-dating updates. */
    class WatchedStore extends InMemoryProcessStore {
      readonly inserted: Array<Date | null> = [];
      expiries = 0;
      override async appendEvents(entries: Parameters<InMemoryProcessStore['appendEvents']>[0]): Promise<void> {
        this.inserted.push(...entries.map((e) => e.deleteTime));
        return super.appendEvents(entries);
      }
      override async expireHistory(processId: string, deleteTime: Date): Promise<void> {
        this.expiries += 1;
        return super.expireHistory(processId, deleteTime);
      }
    }
    const silentOutbox: Outbox = { send: async () => undefined };

    it('inserts every entry already dated, so the insert is the whole record: no entry is ever stored undated, and no update follows', async () => {
      const store = new WatchedStore();
      const doc = { ...(await owedProcess(store, [entry(1, 'Processing', null), entry(2, 'Processed', finishedAt)])), deleteTime: finishedAt };
      await store.commit({ ...doc, revision: 1 }, 0);

      expect(await new OutboxDelivery(store, silentOutbox, pino({ level: 'silent' })).deliver({ ...doc, revision: 1 })).toBe(true);
      expect(store.inserted).toEqual([finishedAt, finishedAt]);
      expect(store.expiries).toBe(0);
    });

    it('on a redelivery by the sweep, also dates what an earlier build stored undated before it crashed', async () => {
      const store = new WatchedStore();
      const doc = { ...(await owedProcess(store, [entry(1, 'Processing', null), entry(2, 'Processed', finishedAt)])), deleteTime: finishedAt };
      await store.commit({ ...doc, revision: 1 }, 0);
      // An earlier build inserted the entries undated, then crashed before dating them.
      await store.appendEvents([{ ...(entry(1, 'Processing', null) as Extract<OutboxEntry, { kind: 'history' }>).entry, _id: 'p-1.1.h' }]);

      expect(await new OutboxDelivery(store, silentOutbox, pino({ level: 'silent' })).deliver({ ...doc, revision: 1 }, { redelivery: true })).toBe(true);
      expect((await store.history('p-1')).map((e) => [e.to, e.deleteTime])).toEqual([
        ['Processing', finishedAt],
        ['Processed', finishedAt],
      ]);
      expect(store.expiries).toBe(1);
    });
  });

  it('keeps the outbox when one send fails, even after the others landed', async () => {
    const store = new InMemoryProcessStore();
    const doc = await owedProcess(store, [message('p-1.1.0', 'app.status'), message('p-1.1.1', QueueNames.alerts)]);
    const failing: Outbox = { send: (queue) => (queue === QueueNames.alerts ? Promise.reject(new Error('redis down')) : Promise.resolve()) };

    expect(await new OutboxDelivery(store, failing, pino({ level: 'silent' })).deliver(doc)).toBe(false);
    expect((await store.get('p-1'))?.outbox).toHaveLength(2);
  });

  describe('where the messages must also reach a replica (Redis Cluster)', () => {
    /** An outbox whose replicas confirm or not, recording when each check was taken and asked. */
    function replicated(confirms: boolean): Outbox & { events: string[] } {
      const events: string[] = [];
      return {
        events,
        send: async (_queue, _message, options) => void events.push(`send ${options?.jobId ?? '?'}`),
        replicaCheck: (queues) => {
          events.push(`check ${queues.join(',')}`);
          return { confirmed: async () => (events.push('confirmed?'), confirms) };
        },
      };
    }

    it('takes the check before the sends, asks it after them, and clears once a replica confirmed', async () => {
      const store = new InMemoryProcessStore();
      const doc = await owedProcess(store, [message('p-1.1.0', 'app.status'), message('p-1.1.1', QueueNames.alerts), message('p-1.1.2', 'app.status')]);
      const outbox = replicated(true);

      expect(await new OutboxDelivery(store, outbox, pino({ level: 'silent' })).deliver(doc)).toBe(true);
      expect(outbox.events).toEqual([`check app.status,${QueueNames.alerts}`, 'send p-1.1.0', 'send p-1.1.1', 'send p-1.1.2', 'confirmed?']);
      expect(await store.get('p-1')).toMatchObject({ outbox: [], outboxSince: null });
    });

    it('keeps the outbox owed when no replica confirmed the sends, though every send was acknowledged', async () => {
      const store = new InMemoryProcessStore();
      const doc = await owedProcess(store, [message('p-1.1.0', 'app.status')]);

      expect(await new OutboxDelivery(store, replicated(false), pino({ level: 'silent' })).deliver(doc)).toBe(false);
      expect((await store.get('p-1'))?.outbox).toHaveLength(1);
    });

    it("reports the submission's early sends as not sent when no replica confirmed them, so its next commit keeps them owed", async () => {
      const store = new InMemoryProcessStore();
      const doc = await owedProcess(store, [message('p-1.1.0', 'app.status')]);

      expect(await new OutboxDelivery(store, replicated(false), pino({ level: 'silent' })).sendMessages(doc)).toBe(false);
      expect(await new OutboxDelivery(store, replicated(true), pino({ level: 'silent' })).sendMessages(doc)).toBe(true);
    });

    it('asks for no check when the outbox owes only history', async () => {
      const store = new InMemoryProcessStore();
      const history: OutboxEntry = {
        kind: 'history',
        id: 'p-1.1.h',
        entry: { processId: 'p-1', orderId: 'o-1', who: 'scheduler-1', at: new Date(T0), from: 'Pending', to: 'Processing', why: 'claimed', attempt: 1, step: null, deleteTime: new Date(T0) },
      };
      const doc = { ...(await owedProcess(store, [history])), deleteTime: new Date(T0) };
      const outbox = replicated(false);

      expect(await new OutboxDelivery(store, outbox, pino({ level: 'silent' })).deliver(doc)).toBe(true);
      expect(outbox.events).toEqual([]);
    });
  });
});
