import { ProcessListQuery, nextCursor, processListFilter } from './process-list-query';
import { LimitQuery } from './limit-query';
import { parseInput } from './parse-input';

const parse = (query: Record<string, unknown>) => parseInput(ProcessListQuery, query, 'query');

describe('parsing the process list query', () => {
  it('asks for the newest 50 when nothing is given', () => {
    expect(parse({})).toEqual({ ok: true, data: { limit: 50 } });
  });

  it('reads every filter and converts limit and before', () => {
    const parsed = parse({ state: 'Error', workflow: 'fast-manual', orderId: 'A-1', limit: '10', before: '2025-02-01T10:00:00.000Z' });
    expect(parsed).toEqual({
      ok: true,
      data: { state: 'Error', workflow: 'fast-manual', orderId: 'A-1', limit: 10, before: { at: new Date('2025-02-01T10:00:00.000Z') } },
    });
  });

  it('takes before as epoch milliseconds too', () => {
    const parsed = parse({ before: '1738404000000' });
    expect(parsed.ok && parsed.data.before?.at.toISOString()).toBe('2025-02-01T10:00:00.000Z');
  });

  it('reads the next cursor of a previous page back into its instant and process id', () => {
    const cursor = nextCursor({ updatedAt: new Date('2025-02-01T10:00:00.000Z'), _id: 'a1b2' });
    expect(cursor).toBe('2025-02-01T10:00:00.000Z~a1b2');
    expect(parse({ before: cursor })).toEqual({ ok: true, data: { limit: 50, before: { at: new Date('2025-02-01T10:00:00.000Z'), id: 'a1b2' } } });
  });

  it.each([['abc'], ['0'], ['501'], ['2.5'], ['']])('refuses limit=%s with the allowed range and the value received', (limit) => {
    const parsed = parse({ limit });
    expect(parsed).toEqual({ ok: false, error: expect.stringContaining('limit must be a whole number from 1 to 500; leave it out for 50') });
    expect(!parsed.ok && parsed.error).toContain(`(got '${limit}')`);
  });

  it('refuses an unknown state and lists the states there are', () => {
    const parsed = parse({ state: 'Done' });
    expect(parsed).toEqual({
      ok: false,
      error: "Bad request query: state must be one of Pending, Processing, Processed, Error, Compensating, Compensated, Canceled (got 'Done')",
    });
  });

  it('refuses an unknown parameter instead of silently ignoring it', () => {
    const parsed = parse({ status: 'Error' });
    expect(!parsed.ok && parsed.error).toBe("Bad request query: unknown query parameter; use state, workflow, orderId, limit and before (got 'status')");
  });

  it('refuses a parameter given twice', () => {
    const parsed = parse({ workflow: ['a', 'b'] });
    expect(!parsed.ok && parsed.error).toMatch(/workflow must be given once/);
  });

  it.each([['yesterday'], ['2025-02-01T10:00:00.000Z~'], ['~a1b2']])('refuses before=%s, saying which formats work', (before) => {
    const parsed = parse({ before });
    expect(!parsed.ok && parsed.error).toBe(
      `Bad request query: before must be an ISO date (2025-01-31T12:00:00.000Z), epoch milliseconds, or the next cursor of a previous page (got '${before}')`,
    );
  });

  it('reports every problem at once', () => {
    const parsed = parse({ state: 'x', limit: 'y' });
    expect(!parsed.ok && parsed.error.split('; ').filter((p) => /must/.test(p))).toHaveLength(2);
  });
});

describe('the MongoDB filter of a list query', () => {
  it('matches everything when no filter is given', () => {
    expect(processListFilter({ limit: 50 })).toEqual({});
  });

  it('matches state, workflow and orderId exactly and an instant strictly', () => {
    const at = new Date('2025-02-01T00:00:00.000Z');
    expect(processListFilter({ limit: 5, state: 'Error', workflow: 'w', orderId: 'o', before: { at } })).toEqual({
      state: 'Error',
      workflow: 'w',
      orderId: 'o',
      updatedAt: { $lt: at },
    });
  });

  it('continues after a cursor in the list order: earlier updates, or the same instant and a smaller id', () => {
    const at = new Date('2025-02-01T00:00:00.000Z');
    expect(processListFilter({ limit: 5, before: { at, id: 'p5' } })).toEqual({
      $or: [{ updatedAt: { $lt: at } }, { updatedAt: at, _id: { $lt: 'p5' } }],
    });
  });
});

describe('the limit query of the alert and dead-letter lists', () => {
  it('defaults to 50 and refuses anything but limit', () => {
    expect(parseInput(LimitQuery, {}, 'query')).toEqual({ ok: true, data: { limit: 50 } });
    expect(parseInput(LimitQuery, { limit: '7' }, 'query')).toEqual({ ok: true, data: { limit: 7 } });
    expect(parseInput(LimitQuery, { since: '1' }, 'query')).toEqual({ ok: false, error: "Bad request query: unknown query parameter; only limit is accepted (got 'since')" });
  });
});
