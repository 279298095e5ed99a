import { calculateObjectSize } from 'bson';
import type { ProcessDocument } from '@sas/contracts';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { RecentDocuments } from './recent-documents';

function processDoc(id: string, padding = 0): ProcessDocument {
  return createProcess({
    processId: id,
    orderId: `order-${id}`,
    payload: { sku: 'kettle', note: 'x'.repeat(padding) },
    replyTo: null,
    workflow: orderFulfilmentV1,
    now: 0,
  });
}

describe('RecentDocuments', () => {
  it('hands a kept copy out once', () => {
    const recent = new RecentDocuments(10, 1_000_000);
    const doc = processDoc('p-1');
    recent.keep(doc);

    expect(recent.take('p-1')).toBe(doc);
    expect(recent.take('p-1')).toBeUndefined();
    expect(recent.bytes()).toBe(0);
  });

  it('keeps no copy of a finished process', () => {
    const recent = new RecentDocuments(10, 1_000_000);
    recent.keep(processDoc('p-1'));
    recent.keep({ ...processDoc('p-1'), deleteTime: new Date(0) });

    expect(recent.take('p-1')).toBeUndefined();
    expect(recent.size()).toBe(0);
  });

  it('drops the least recently kept copy past its count', () => {
    const recent = new RecentDocuments(2, 1_000_000);
    for (const id of ['p-1', 'p-2', 'p-1', 'p-3']) recent.keep(processDoc(id));

    expect(recent.take('p-2')).toBeUndefined();
    expect(recent.take('p-1')).toBeDefined();
    expect(recent.take('p-3')).toBeDefined();
  });

  describe('when the documents are large', () => {
    const big = calculateObjectSize(processDoc('p-0', 60_000));

    it('drops the oldest copies until the kept bytes fit, whatever the count allows', () => {
      const recent = new RecentDocuments(1000, 3 * big);
      for (let i = 1; i <= 5; i++) recent.keep(processDoc(`p-${i}`, 60_000));

      expect(recent.size()).toBe(3);
      expect(recent.bytes()).toBe(3 * big);
      expect(['p-1', 'p-2'].map((id) => recent.take(id))).toEqual([undefined, undefined]);
      expect(recent.take('p-5')).toBeDefined();
    });

    it('does not keep a document larger than the whole budget', () => {
      const recent = new RecentDocuments(1000, big - 1);
      recent.keep(processDoc('p-small'));
      recent.keep(processDoc('p-big', 60_000));

      expect(recent.take('p-big')).toBeUndefined();
      expect(recent.take('p-small')).toBeDefined();
    });

    it('counts a replaced copy once', () => {
      const recent = new RecentDocuments(1000, 10 * big);
      recent.keep(processDoc('p-1', 60_000));
      recent.keep(processDoc('p-1', 60_000));

      expect(recent.size()).toBe(1);
      expect(recent.bytes()).toBe(big);
    });
  });
});
