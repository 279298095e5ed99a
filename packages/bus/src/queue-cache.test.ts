import { QueueCache } from './queue-cache';

class Handle {
  closed = 0;
  constructor(readonly name: string) {}
  async close(): Promise<void> {
    this.closed += 1;
  }
}

function cache(capacity: number): { cache: QueueCache<Handle>; opened: Handle[] } {
  const opened: Handle[] = [];
  return {
    opened,
    cache: new QueueCache(capacity, (name) => {
      const h = new Handle(name);
      opened.push(h);
      return h;
    }),
  };
}

const use = (c: QueueCache<Handle>, name: string): Promise<Handle> => c.with(name, async (h) => h);

describe('QueueCache', () => {
  it('keeps at most its capacity of unpinned handles, closing the least recently used', async () => {
    const { cache: c, opened } = cache(2);
    await use(c, 'a');
    await use(c, 'b');
    await use(c, 'a'); // a is now more recent than b
    await use(c, 'c');

    expect(c.size()).toBe(2);
    expect(opened.map((h) => [h.name, h.closed])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 0],
    ]);
  });

  it('never evicts a pinned handle', async () => {
    const { cache: c } = cache(1);
    const pinned = c.pin('dead-letter');
    for (const name of ['x', 'y', 'z']) await use(c, name);

    expect(await use(c, 'dead-letter')).toBe(pinned);
    expect(pinned.closed).toBe(0);
    expect(c.size()).toBe(2);
  });

  it('closes an evicted handle only after the send using it has finished', async () => {
    const { cache: c, opened } = cache(1);
    let finish: () => void = () => undefined;
    const sending = c.with('a', () => new Promise<void>((resolve) => (finish = resolve)));
    await use(c, 'b'); // evicts a while it is in use

    expect(opened[0]?.closed).toBe(0);
    finish();
    await sending;
    await c.closeAll();
    expect(opened[0]?.closed).toBe(1);
  });

  it('closes every handle once on closeAll', async () => {
    const { cache: c, opened } = cache(5);
    c.pin('p');
    await use(c, 'q');
    await c.closeAll();
    expect(opened.map((h) => h.closed)).toEqual([1, 1]);
  });
});
