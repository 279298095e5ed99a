import { HeldWorkCadence } from './held-work-cadence';

const RESUMED = 1_000_000;

describe('HeldWorkCadence', () => {
  it('looks every round during the fast window, whatever the looks found', () => {
    const cadence = new HeldWorkCadence({ fastWindowMs: 10_000, slowIntervalMs: 30_000 });
    for (let now = RESUMED; now < RESUMED + 10_000; now += 500) {
      expect(cadence.shouldLook('payment', RESUMED, now)).toBe(true);
      cadence.looked('payment', now, true);
    }
  });

  it('past the window, looks once per slow interval while nothing is found, and every round once something is', () => {
    const cadence = new HeldWorkCadence({ fastWindowMs: 10_000, slowIntervalMs: 30_000 });
    cadence.looked('payment', RESUMED + 10_000, true);
    expect(cadence.shouldLook('payment', RESUMED, RESUMED + 10_500)).toBe(false);
    expect(cadence.shouldLook('payment', RESUMED, RESUMED + 39_999)).toBe(false);
    expect(cadence.shouldLook('payment', RESUMED, RESUMED + 40_000)).toBe(true);
    cadence.looked('payment', RESUMED + 40_000, false);
    expect(cadence.shouldLook('payment', RESUMED, RESUMED + 40_500)).toBe(true);
  });

  it('starts the fast window again on a new resume, and forgets agents no longer resumed', () => {
    const cadence = new HeldWorkCadence({ fastWindowMs: 10_000, slowIntervalMs: 30_000 });
    cadence.looked('payment', RESUMED + 20_000, true);
    expect(cadence.shouldLook('payment', RESUMED, RESUMED + 20_500)).toBe(false);
    expect(cadence.shouldLook('payment', RESUMED + 20_100, RESUMED + 20_500)).toBe(true);
    cadence.keepOnly(new Map());
    expect(cadence.shouldLook('payment', RESUMED, RESUMED + 20_500)).toBe(true);
  });
});
