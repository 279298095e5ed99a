import { calculateObjectSize } from 'bson';
import type { ProcessDocument } from '@sas/contracts';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { bsonSize, RecentDocuments } from './recent-documents';

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

describe('bsonSize', () => {
  it('counts a process document as calculateObjectSize does, small or near the payload limit', () => {
    for (const doc of [processDoc('p-1'), processDoc('p-2', 60_000), { ...processDoc('p-3'), payload: { note: 'café ✓ 𝄞', list: [1, undefined, null, 'x'] } }]) {
      expect(bsonSize(doc)).toBe(calculateObjectSize(doc));
    }
  });

  it('counts every kind of value a document can hold as calculateObjectSize does', () => {
    let state = 7;
    const random = (): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 4294967296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const scalars: readonly unknown[] = [0, -0, 1, -1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 1.5, NaN, Infinity, 2 ** 53, 2 ** 53 + 2, true, false, null, undefined, '', 'ascii', 'é', '✓', '𝄞', '\u0000', 'x'.repeat(65), `${'y'.repeat(70)}é`, new Date(0), new Date(8.64e15)];
    const value = (depth: number): unknown => {
      const roll = random();
      if (depth > 3 || roll < 0.6) return pick(scalars);
      if (roll < 0.8) return Array.from({ length: Math.floor(random() * 12) }, () => value(depth + 1));
      const object: Record<string, unknown> = Object.create(random() < 0.1 ? null : Object.prototype) as Record<string, unknown>;
      for (let i = Math.floor(random() * 14); i > 0; i--) object[pick(['a', 'key', 'é', '𝄞k', 'x'.repeat(70), String(i)])] = value(depth + 1);
      return object;
    };
    for (let i = 0; i < 500; i++) {
      const doc = { _id: `p-${i}`, body: value(0), list: [value(1), value(1)] };
      expect({ i, size: bsonSize(doc) }).toEqual({ i, size: calculateObjectSize(doc) });
    }
  });

  it('leaves what it does not measure itself to calculateObjectSize', () => {
    const doc = { map: new Map([['k', 1]]), bytes: Buffer.from('abc'), big: 5n, at: new Date(1), nested: { toBSON: () => ({ replaced: true }) }, f: () => 1 };
    expect(bsonSize(doc)).toBe(calculateObjectSize(doc));
  });
});

