import { toOutputLine, type OutputLine } from '@sas/stack';
import { committedTransitions, doubleCommits, unloggedRevisions } from './transition-log';

function commitLine(service: string, run: number, processId: string, revision: number, from = 'Pending', to = 'Processing'): OutputLine {
  const json = { level: 30, service: 'scheduler', instance: service, processId, orderId: 'o1', attempt: 3, revision, from, to, step: 'charge-payment', msg: 'claimed; dispatching charge-payment' };
  return toOutputLine(service, 'stdout', JSON.stringify(json), run);
}

describe('committedTransitions', () => {
  it('reads the engine commit lines and names the process run that wrote each', () => {
    const lines = [
      toOutputLine('scheduler-1', 'stdout', JSON.stringify({ msg: 'scheduler ready' }), 1),
      toOutputLine('scheduler-1', 'stdout', 'not json at all', 1),
      toOutputLine('scheduler-1', 'stdout', JSON.stringify({ processId: 'p1', msg: 'reply ignored' }), 1),
      commitLine('scheduler-1', 2, 'p1', 4),
    ];
    expect(committedTransitions(lines)).toEqual([{ processId: 'p1', revision: 4, from: 'Pending', to: 'Processing', writer: 'scheduler-1 run 2' }]);
  });
});

describe('doubleCommits', () => {
  it('finds nothing when every revision of a process was committed once', () => {
    const commits = committedTransitions([commitLine('scheduler-1', 1, 'p1', 2), commitLine('scheduler-2', 1, 'p1', 3), commitLine('scheduler-2', 1, 'p2', 2)]);
    expect(doubleCommits(commits)).toEqual([]);
  });

  it('names a revision committed by two schedulers', () => {
    const commits = committedTransitions([commitLine('scheduler-1', 1, 'p1', 4), commitLine('scheduler-2', 1, 'p1', 4)]);
    expect(doubleCommits(commits)).toEqual([
      'process p1 revision 4 committed 2 times: scheduler-1 run 1 (Pending→Processing), scheduler-2 run 1 (Pending→Processing)',
    ]);
  });

  it('names a revision committed again by a restarted run of the same instance', () => {
    const commits = committedTransitions([commitLine('scheduler-1', 1, 'p1', 4), commitLine('scheduler-1', 2, 'p1', 4, 'Processing', 'Pending')]);
    expect(doubleCommits(commits)).toEqual([
      'process p1 revision 4 committed 2 times: scheduler-1 run 1 (Pending→Processing), scheduler-1 run 2 (Processing→Pending)',
    ]);
  });
});

describe('unloggedRevisions', () => {
  it('finds nothing when every revision from the first claim to the stored one was logged', () => {
    const commits = committedTransitions([commitLine('scheduler-1', 1, 'p1', 1), commitLine('scheduler-2', 1, 'p1', 2)]);
    expect(unloggedRevisions(commits, [{ _id: 'p1', orderId: 'o1', revision: 2 }])).toEqual([]);
  });

  it('names each revision no line accounts for', () => {
    const commits = committedTransitions([commitLine('scheduler-1', 1, 'p1', 2)]);
    expect(unloggedRevisions(commits, [{ _id: 'p1', orderId: 'o1', revision: 3 }, { _id: 'p2', orderId: 'o2', revision: 0 }])).toEqual([
      'order o1 revision 1',
      'order o1 revision 3',
    ]);
  });
});
