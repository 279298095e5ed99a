import { renderStateCounts } from './state-counts';

describe('renderStateCounts', () => {
  it('lists the states with processes in the way a process goes, after the total', () => {
    expect(renderStateCounts({ Processed: 3, Error: 1, Pending: 2, Compensated: 0 })).toBe('processes: 6 · Pending 2 · Processed 3 · Error 1');
  });

  it('says 0 when there is no process yet', () => {
    expect(renderStateCounts({})).toBe('processes: 0');
  });
});
