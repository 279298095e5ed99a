import { ConsumerProgress, type ConsumerSample } from './consumer-progress';

const sample = (at: number, fields: Partial<ConsumerSample> = {}): ConsumerSample => ({ at, waiting: 3, taken: 0, active: 0, concurrency: 8, ...fields });
const fine = { state: 'fine' };
const idle = (forMs: number): unknown => ({ state: 'idle', forMs });
const stuck = (forMs: number): unknown => ({ state: 'stuck', forMs });

describe('ConsumerProgress', () => {
  it('calls a consumer stuck once work waited past the bound while it had room and took none', () => {
    const progress = new ConsumerProgress(10_000);
    expect(progress.observe(sample(0))).toEqual(idle(0));
    expect(progress.observe(sample(10_000))).toEqual(idle(10_000));
    expect(progress.observe(sample(10_001))).toEqual(stuck(10_001));
    expect(progress.observe(sample(12_000))).toEqual(stuck(12_000));
  });

  it('does not call it stuck while it takes jobs, however much waits', () => {
    const progress = new ConsumerProgress(10_000);
    progress.observe(sample(0));
    for (let t = 5_000; t <= 60_000; t += 5_000) expect(progress.observe(sample(t, { taken: t / 5_000 }))).toEqual(fine);
  });

  it('does not call it stuck while its queue is empty, and starts over when work arrives', () => {
    const progress = new ConsumerProgress(10_000);
    expect(progress.observe(sample(0, { waiting: 0 }))).toEqual(fine);
    expect(progress.observe(sample(30_000, { waiting: 0 }))).toEqual(fine);
    expect(progress.observe(sample(31_000))).toEqual(idle(0));
    expect(progress.observe(sample(41_000))).toEqual(idle(10_000));
    expect(progress.observe(sample(41_001))).toEqual(stuck(10_001));
  });

  it('does not call it stuck while every one of its slots is busy', () => {
    const progress = new ConsumerProgress(10_000);
    expect(progress.observe(sample(0, { active: 8 }))).toEqual(fine);
    expect(progress.observe(sample(60_000, { active: 8 }))).toEqual(fine);
    expect(progress.observe(sample(60_001, { active: 7 }))).toEqual(idle(0));
    expect(progress.observe(sample(70_002, { active: 7 }))).toEqual(stuck(10_001));
  });

  it('gives a restarted consumer the whole bound again', () => {
    const progress = new ConsumerProgress(10_000);
    progress.observe(sample(0));
    expect(progress.observe(sample(20_000))).toEqual(stuck(20_000));
    progress.restarted(20_000);
    expect(progress.observe(sample(29_000))).toEqual(idle(9_000));
    expect(progress.observe(sample(30_001))).toEqual(stuck(10_001));
  });

  it('does not count the time Redis could not be asked against the consumer', () => {
    const progress = new ConsumerProgress(10_000);
    expect(progress.observe(sample(0))).toEqual(idle(0));
    progress.unknown(); // a 15 s cut: no count answered
    expect(progress.observe(sample(15_000))).toEqual(idle(0));
    expect(progress.observe(sample(25_000))).toEqual(idle(10_000));
    expect(progress.observe(sample(25_001))).toEqual(stuck(10_001));
  });

  it('refuses a bound that is not a positive number', () => {
    expect(() => new ConsumerProgress(0)).toThrow('ConsumerProgress: boundMs must be a positive number of milliseconds (got 0)');
  });
});
