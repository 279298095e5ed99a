import { renderRemoteStats } from './render-remote-stats';

describe('renderRemoteStats', () => {
  it('lists each called service with its outcomes, and leaves out a service no order called', () => {
    const text = renderRemoteStats({
      services: {
        payment: { total: 3, outcomes: { ok: 2, error503: 1, lost: 0 } },
        flight: { total: 0, outcomes: {} },
      },
    });
    expect(text).toBe('  payment        3 calls: ok 2, error503 1');
  });
});
