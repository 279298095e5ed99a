import { ReleaseBudget } from './release-budget';

describe('the budget for releasing held work', () => {
  it('starts full, accrues at the rate, and never banks more than the burst', () => {
    const budget = new ReleaseBudget(4, 2);
    expect(budget.available(0)).toBe(2);
    budget.spend(2);
    expect(budget.available(250)).toBe(1);
    budget.spend(1);
    expect(budget.available(250)).toBe(0);
    // An hour idle banks no more than the burst.
    expect(budget.available(3_600_000)).toBe(2);
  });

  it('allows at most rate × elapsed + burst over any run', () => {
    const budget = new ReleaseBudget(10, 5);
    let spent = 0;
    for (let t = 0; t <= 10_000; t += 137) {
      const n = budget.available(t);
      budget.spend(n);
      spent += n;
    }
    expect(spent).toBeLessThanOrEqual(10 * 10 + 5);
    expect(spent).toBeGreaterThanOrEqual(10 * 10 - 10);
  });

  it('refuses a rate that is not positive, naming the variable', () => {
    expect(() => new ReleaseBudget(0, 1)).toThrow('the release rate must be positive (got 0); set RELEASE_RATE to processes per second');
  });
});
