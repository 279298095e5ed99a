import { DEFAULT_TRANSIENT_STATUSES, classifyStatus } from './status-class';

const defaults = { transient: DEFAULT_TRANSIENT_STATUSES, alreadyDone: [] };

describe('classifyStatus', () => {
  it.each([
    [200, 'ok'],
    [201, 'ok'],
    [302, 'redirect'],
    [429, 'transient'],
    [500, 'transient'],
    [503, 'transient'],
    [400, 'permanent'],
    [408, 'permanent'],
    [409, 'permanent'],
    [422, 'permanent'],
  ] as const)('sorts %i as %s by default, as the HTTP agent always has', (status, expected) => {
    expect(classifyStatus(status, defaults)).toBe(expected);
  });

  it('takes statuses the mapping names as already done before anything else', () => {
    const rules = { transient: DEFAULT_TRANSIENT_STATUSES, alreadyDone: [409, 208] as const };
    expect(classifyStatus(409, rules)).toBe('already-done');
    expect(classifyStatus(208, rules)).toBe('already-done');
  });

  it('reads status classes such as 4xx', () => {
    expect(classifyStatus(404, { transient: ['4xx'], alreadyDone: [] })).toBe('transient');
    expect(classifyStatus(503, { transient: [408], alreadyDone: [] })).toBe('permanent');
  });
});
