import { runInNewContext } from 'node:vm';
import { STEP_VIEW_SCRIPT } from './step-view-script';

interface StepView {
  entries(steps: object[]): { group: string | null; members: { n: number; step: { name: string } }[] }[];
  what(step: object, process: object): string;
}

const view = runInNewContext(STEP_VIEW_SCRIPT) as StepView;
const task = (name: string, extra: object = {}): object => ({ name, agent: 'payment', operation: 'charge', state: 'Completed', ...extra });

describe('the page’s view of a process’s steps', () => {
  it('puts the members of one parallel group side by side in one entry, numbered as stored', () => {
    const steps = [task('reserve'), task('charge', { group: 'pay-and-ship' }), task('ship', { group: 'pay-and-ship' }), task('notify')];
    const entries = view.entries(steps).map((e) => ({ group: e.group, members: e.members.map((m) => `${m.n}.${m.step.name}`) }));
    expect(entries).toEqual([
      { group: null, members: ['1.reserve'] },
      { group: 'pay-and-ship', members: ['2.charge', '3.ship'] },
      { group: null, members: ['4.notify'] },
    ]);
  });

  const pending = { state: 'Pending', mode: 'forward' };

  it('says what a waiting timer or signal step waits for and until when, and what a task calls', () => {
    expect(view.what({ kind: 'wait', state: 'Running', waitUntil: '2030-01-01T10:00:00.000Z' }, pending)).toBe('timer: waiting until 2030-01-01 10:00:00.000');
    expect(view.what({ kind: 'wait', state: 'Completed', waitUntil: '2030-01-01T10:00:00.000Z' }, pending)).toBe('timer');
    expect(view.what({ kind: 'signal', signal: 'approval', state: 'Running', waitUntil: '2030-01-02T00:00:00.000Z' }, pending)).toBe('signal approval: waiting, times out at 2030-01-02 00:00:00.000');
    expect(view.what({ kind: 'signal', signal: 'approval', state: 'Skipped' }, pending)).toBe('signal approval');
    expect(view.what(task('charge'), pending)).toBe('payment.charge');
  });

  it('does not show a wait as waiting once the process is canceled or being undone', () => {
    const timer = { kind: 'wait', state: 'Running', waitUntil: '2030-01-01T10:00:00.000Z' };
    expect(view.what(timer, { state: 'Canceled', mode: 'compensate' })).toBe('timer');
    expect(view.what(timer, { state: 'Compensating', mode: 'compensate' })).toBe('timer');
  });
});
