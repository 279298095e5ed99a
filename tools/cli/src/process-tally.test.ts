import type { BulkFilter } from '@sas/contracts';
import { describeFilter, processesFilterFromArgs, renderTally } from './processes-command';
import { ProcessTally, renderCounts, type ListedProcess } from './process-tally';

const at = (minute: number): Date => new Date(Date.UTC(2026, 10, 26, 12, minute));

function proc(id: string, state: ListedProcess['state'], workflow: string, step: number, minute: number, reason?: string): ListedProcess {
  return {
    _id: id,
    orderId: `o-${id}`,
    state,
    workflow,
    createdAt: at(0),
    updatedAt: at(minute),
    currentStep: step,
    steps: [{ name: 'charge-payment', error: null }, { name: 'ship', error: null }],
    reason: reason ?? null,
  };
}

const noArgs = { state: undefined, workflow: undefined, failedStep: undefined, timeField: undefined, since: undefined, until: undefined, text: undefined, limit: undefined };

describe('ProcessTally', () => {
  it('counts by state, workflow and current step, and keeps the latest, newest first', () => {
    const tally = new ProcessTally(2);
    for (const p of [proc('a', 'Error', 'shop', 0, 1), proc('b', 'Error', 'shop', 1, 5), proc('c', 'Processed', 'refund', 2, 3), proc('d', 'Error', 'refund', 0, 4)]) tally.add(p);
    expect(tally.total).toBe(4);
    expect(renderCounts(tally.byState)).toBe('Error 3 · Processed 1');
    expect(renderCounts(tally.byWorkflow)).toBe('refund 2 · shop 2');
    expect(renderCounts(tally.byStep)).toBe('charge-payment 2 · - 1 · ship 1');
    expect(tally.latest().map((p) => p._id)).toEqual(['b', 'd']);
  });

  it('keeps no list with limit 0, only counts', () => {
    const tally = new ProcessTally(0);
    tally.add(proc('a', 'Error', 'shop', 0, 1));
    expect([tally.total, tally.latest()]).toEqual([1, []]);
  });

  it('renders the counts and the latest processes with their step and reason', () => {
    const tally = new ProcessTally(1);
    tally.add(proc('a', 'Error', 'shop', 0, 1, 'charge-payment refused: card declined'));
    tally.add(proc('b', 'Error', 'shop', 0, 0));
    expect(renderTally(tally, 'state Error', 1)).toEqual([
      '2 processes (state Error)',
      '  by state:    Error 2',
      '  by workflow: shop 2',
      '  by step:     charge-payment 2   (the current step; for Error, the step that failed)',
      'latest 1 (--limit N for more):',
      '  2026-11-26T12:01:00.000Z  Error        a  order o-a  shop  at charge-payment  charge-payment refused: card declined',
    ]);
  });
});

describe('the options of sas processes', () => {
  it('selects every state when --state is not given, and lists 20', () => {
    const { filter, limit } = processesFilterFromArgs(noArgs);
    expect(filter.state).toEqual(['Pending', 'Processing', 'Processed', 'Error', 'Compensating', 'Compensated', 'Canceled']);
    expect(limit).toBe(20);
    expect(describeFilter(filter, false)).toBe('all processes');
  });

  it('reads the same filter as sas bulk', () => {
    const { filter } = processesFilterFromArgs({ ...noArgs, state: 'Error,Pending', workflow: 'shop', failedStep: 'ship', since: '2026-11-26T00:00:00Z', text: 'declined', limit: '0' });
    expect(filter).toEqual<BulkFilter>({ state: ['Error', 'Pending'], workflow: 'shop', failedStep: 'ship', timeField: 'updatedAt', since: new Date('2026-11-26T00:00:00Z'), text: 'declined' });
    expect(describeFilter(filter, true)).toBe("state Error,Pending · workflow shop · at step ship · updatedAt ≥ 2026-11-26T00:00:00.000Z · mentioning 'declined'");
  });

  it('says what is wrong with an option', () => {
    expect(() => processesFilterFromArgs({ ...noArgs, state: 'Failed' })).toThrow(/^processes: state must be one of Pending, Processing/);
    expect(() => processesFilterFromArgs({ ...noArgs, limit: '-1' })).toThrow("processes: --limit must be a whole number from 0 to 10000 (got '-1')");
  });
});
