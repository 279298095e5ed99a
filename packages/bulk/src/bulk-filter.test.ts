import { BulkFilter, BulkOperationRequest, type ProcessDocument } from '@sas/contracts';
import { matchesBulkFilter, type BulkCandidate } from './bulk-filter-match';
import { afterCursor, bulkFilterQuery } from './bulk-filter-query';

const T = (iso: string) => new Date(iso);
const CREATED = T('2030-01-01T12:00:00Z');

function candidate(over: Partial<BulkCandidate> = {}): BulkCandidate {
  return {
    _id: 'p-1',
    state: 'Error' as ProcessDocument['state'],
    workflow: 'order-fulfilment',
    createdAt: T('2030-01-01T10:00:00Z'),
    updatedAt: T('2030-01-01T11:00:00Z'),
    reason: 'payment refused: Card Declined',
    currentStep: 0,
    steps: [
      { name: 'payment', error: 'card declined' },
      { name: 'shipping', error: null },
    ],
    ...over,
  };
}

describe('BulkFilter', () => {
  it('accepts one state, a list, or comma-separated text, and defaults the time field to updatedAt', () => {
    expect(BulkFilter.parse({ state: 'Error' })).toEqual({ state: ['Error'], timeField: 'updatedAt' });
    expect(BulkFilter.parse({ state: 'Pending,Processing' }).state).toEqual(['Pending', 'Processing']);
    expect(BulkFilter.parse({ state: ['Error', 'Pending'] }).state).toEqual(['Error', 'Pending']);
  });

  it('parses since and until from ISO text and epoch milliseconds', () => {
    const f = BulkFilter.parse({ state: 'Error', since: '2030-01-01T00:00:00Z', until: String(Date.UTC(2030, 0, 2)) });
    expect(f.since).toEqual(T('2030-01-01T00:00:00Z'));
    expect(f.until).toEqual(T('2030-01-02T00:00:00Z'));
  });

  it.each([
    [{ state: 'Broken' }, 'state must be one of Pending, Processing, Processed, Error, Compensating, Compensated, Canceled'],
    [{ state: 'Error', status: 'x' }, 'unknown filter field; use state, workflow, failedStep, timeField, since, until and text'],
    [{ state: 'Error', since: 'yesterday' }, 'since is not a date; give an ISO 8601 instant such as 2025-01-31T12:00:00Z, or epoch milliseconds'],
    [{ state: 'Error', since: '2030-01-02T00:00:00Z', until: '2030-01-01T00:00:00Z' }, 'until (2030-01-01T00:00:00.000Z) must be after since (2030-01-02T00:00:00.000Z)'],
    [{ workflow: 'x' }, 'state is required: name the states to act on, such as Error'],
    [{ state: [] }, 'state must name at least one state'],
  ])('refuses %j with a message saying what to fix', (input, message) => {
    const parsed = BulkFilter.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toContain(message);
  });
});

describe('BulkOperationRequest', () => {
  it('refuses a resubmit of states that cannot be resubmitted, naming them', () => {
    const parsed = BulkOperationRequest.safeParse({ command: 'resubmit', filter: { state: 'Error,Pending' }, reason: 'r' });
    expect(parsed.error?.issues[0]?.message).toBe('resubmit applies only to Error processes; remove Pending from state');
  });

  it('refuses a cancel of finished processes', () => {
    const parsed = BulkOperationRequest.safeParse({ command: 'cancel', filter: { state: 'Processed' }, reason: 'r' });
    expect(parsed.error?.issues[0]?.message).toBe('cancel applies only to Pending, Processing, Error processes; remove Processed from state');
  });

  it('requires a reason, since it goes into every history', () => {
    const parsed = BulkOperationRequest.safeParse({ command: 'cancel', filter: { state: 'Error' } });
    expect(parsed.error?.issues[0]?.message).toBe('reason is required: say why, it goes into every process history');
  });
});

describe('matchesBulkFilter', () => {
  const filter = (input: Record<string, unknown>) => BulkFilter.parse({ state: 'Error', ...input });

  it('selects a process matching every criterion', () => {
    const f = filter({ workflow: 'order-fulfilment', failedStep: 'payment', since: '2030-01-01T11:00:00Z', until: '2030-01-01T11:00:01Z', text: 'DECLINED' });
    expect(matchesBulkFilter(candidate(), f, CREATED)).toBe(true);
  });

  it.each([
    ['another state', { state: 'Pending' as const }, {}],
    ['another workflow', {}, { workflow: 'other' }],
    ['stopped at another step', { currentStep: 1 }, { failedStep: 'payment' }],
    ['updated before since', {}, { since: '2030-01-01T11:00:00.001Z' }],
    ['updated at until (exclusive)', {}, { until: '2030-01-01T11:00:00Z' }],
    ['created outside the createdAt range', {}, { timeField: 'createdAt', since: '2030-01-01T10:30:00Z' }],
    ['without the text in its reason or errors', {}, { text: 'timeout' }],
    ['created after the operation', { createdAt: T('2030-01-01T12:00:00.001Z') }, {}],
  ])('leaves out a process %s', (_what, over, criteria) => {
    expect(matchesBulkFilter(candidate(over), filter(criteria), CREATED)).toBe(false);
  });

  it('finds the text in a step error when the reason lacks it', () => {
    expect(matchesBulkFilter(candidate({ reason: null }), filter({ text: 'card' }), CREATED)).toBe(true);
  });
});

describe('bulkFilterQuery', () => {
  it('narrows by state, workflow, step name, the updatedAt range and the creation bound', () => {
    const f = BulkFilter.parse({ state: 'Error,Pending', workflow: 'w', failedStep: 'payment', since: '2030-01-01T00:00:00Z', until: '2030-01-02T00:00:00Z' });
    expect(bulkFilterQuery(f, CREATED)).toEqual({
      state: { $in: ['Error', 'Pending'] },
      workflow: 'w',
      'steps.name': 'payment',
      createdAt: { $lte: CREATED },
      updatedAt: { $gte: T('2030-01-01T00:00:00Z'), $lt: T('2030-01-02T00:00:00Z') },
    });
  });

  it('puts a createdAt range and the creation bound into one condition', () => {
    const f = BulkFilter.parse({ state: 'Error', timeField: 'createdAt', since: '2030-01-01T00:00:00Z' });
    expect(bulkFilterQuery(f, CREATED)).toEqual({ state: 'Error', createdAt: { $lte: CREATED, $gte: T('2030-01-01T00:00:00Z') } });
  });

  it('starts after the cursor in _id order', () => {
    expect(afterCursor({ state: 'Error' }, 'p-9')).toEqual({ state: 'Error', _id: { $gt: 'p-9' } });
    expect(afterCursor({ state: 'Error' }, null)).toEqual({ state: 'Error' });
  });
});
