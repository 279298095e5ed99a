import { FaultInjector } from './fault-injector';

class Counter {
  value = 0;
  async add(n: number): Promise<number> {
    this.value += n;
    return this.value;
  }
  async read(): Promise<number> {
    return this.value;
  }
}

describe('FaultInjector', () => {
  it('fails the chosen call once, before it reaches the target', async () => {
    const faults = new FaultInjector().failOnce(2);
    const counter = faults.wrap(new Counter());
    await counter.add(1);
    await expect(counter.add(1)).rejects.toThrow('injected fault on call 2');
    await counter.add(1);
    expect(await counter.read()).toBe(2);
    expect(faults.calls.map((c) => c.method)).toEqual(['add', 'add', 'add', 'read']);
  });

  it('with afterwards, performs the call and then throws', async () => {
    const faults = new FaultInjector().failMethodOnce('add', 1);
    const target = new Counter();
    const counter = faults.wrap(target, { afterwards: true });
    await expect(counter.add(5)).rejects.toThrow('injected fault on add #1');
    expect(target.value).toBe(5);
  });

  it('fails every matching call while an outage lasts, then heals', async () => {
    let down = true;
    const faults = new FaultInjector().failWhile('read', () => down);
    const counter = faults.wrap(new Counter());
    await expect(counter.read()).rejects.toThrow('injected outage of read');
    await expect(counter.add(2)).resolves.toBe(2);
    down = false;
    await expect(counter.read()).resolves.toBe(2);
  });
});
