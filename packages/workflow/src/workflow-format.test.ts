import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createProcess } from './create-process';
import { tripBooking } from './test-support/trip-booking';
import { WorkflowDefinition } from './workflow-definition';
import { entryKind, taskSteps, workflowAgents } from './workflow-entries';
import { workflowIssues } from './workflow-issues';

describe('the workflow format', () => {
  it('holds the four kinds of entry, told apart by their key', () => {
    const parsed = WorkflowDefinition.parse(tripBooking);
    expect(parsed.steps.map(entryKind)).toEqual(['task', 'group', 'task', 'signal', 'wait', 'task']);
    expect(taskSteps(parsed).map((s) => s.name)).toEqual(['check-customer', 'book-flight', 'book-car', 'book-hotel', 'charge']);
    expect(workflowAgents(parsed)).toEqual(['crm', 'flights', 'cars', 'hotels', 'payment']);
  });

  it('flattens the entries into one step record each, in order, members naming their group', () => {
    const doc = createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow: tripBooking, now: 0 });
    expect(doc.steps.map((s) => [s.name, s.kind ?? 'task', s.group ?? null, s.agent, s.compensation])).toEqual([
      ['check-customer', 'task', null, 'crm', null],
      ['book-flight', 'task', 'book-travel', 'flights', 'cancel'],
      ['book-car', 'task', 'book-travel', 'cars', 'cancel'],
      ['book-hotel', 'task', null, 'hotels', 'cancel'],
      ['confirm', 'signal', null, '', null],
      ['cool-off', 'wait', null, '', null],
      ['charge', 'task', null, 'payment', 'refund'],
    ]);
    expect(doc.steps[4]?.signal).toBe('customer-confirmed');
    expect(doc.steps[1]?.idempotencyKey).toBe('p-1/book-flight');
  });

  it('explains each mistake by its path, against the kind the entry has', () => {
    const steps = [...tripBooking.steps];
    steps[1] = { name: 'book-travel', parallel: [{ ...taskSteps(tripBooking)[1]!, condition: 'true' } as never] };
    steps[3] = { name: 'confirm', signal: { name: 'customer-confirmed', timeoutMs: 10, onTimeout: 'retry' } } as never;
    steps[4] = { name: 'cool-off', wait: { ms: 0 } };
    steps[5] = { ...taskSteps(tripBooking)[4]!, condition: 'payload.amount >' };
    expect(workflowIssues({ ...tripBooking, steps })).toEqual([
      'steps[1].parallel: a parallel group has at least 2 members; write a single task as a step',
      "steps[1].parallel[0]: unknown key 'condition'; the keys here are name, agent, operation, compensation, completeByMs, retry",
      expect.stringMatching(/^steps\[3\]\.signal\.onTimeout: Invalid enum value/),
      'steps[4].wait.ms: Number must be greater than 0',
      expect.stringMatching(/^steps\[5\]\.condition: not a valid CEL expression: /),
    ]);
  });

  it('refuses a step name used twice, a group member against another step too', () => {
    const steps = [...tripBooking.steps, { name: 'book-car', wait: { ms: 10 } }];
    expect(workflowIssues({ ...tripBooking, steps })).toEqual(["(workflow): step name 'book-car' is used twice"]);
  });

  it('bounds a condition at 1,000 characters', () => {
    const long = `payload.a == 1${' || payload.a == 1'.repeat(60)}`;
    const steps = tripBooking.steps.map((e) => (e.name === 'book-hotel' ? { ...e, condition: long } : e));
    expect(long.length).toBeGreaterThan(1000);
    expect(workflowIssues({ ...tripBooking, steps })).toEqual(['steps[2].condition: a condition is at most 1000 characters']);
    // Not parsed at all: a megabyte of unbalanced parentheses is refused by its length alone.
    const huge = tripBooking.steps.map((e) => (e.name === 'book-hotel' ? { ...e, condition: '('.repeat(1_000_000) } : e));
    expect(workflowIssues({ ...tripBooking, steps: huge })).toEqual(['steps[2].condition: a condition is at most 1000 characters']);
  });
});

describe('the examples of docs/reference/workflow-format.md', () => {
  const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'reference', 'workflow-format.md'), 'utf8');
  const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const definitions = blocks.filter((b) => b.trimStart().startsWith('[') || b.includes('"version"')).map((b) => JSON.parse(b) as unknown);
  const entries = blocks.filter((b) => b.includes('"parallel"') && !b.includes('"version"')).map((b) => JSON.parse(b) as unknown);

  it('are valid workflows, the trip booking with its group, condition and signal step among them', () => {
    const all = definitions.flatMap((d) => (Array.isArray(d) ? d : [d]));
    expect(all.map((w) => (w as { name: string }).name)).toEqual(expect.arrayContaining(['shop-order', 'trip-booking']));
    expect(all.flatMap((w, i) => workflowIssues(w, `example ${i}`))).toEqual([]);
  });

  it('show a parallel group that is a valid entry', () => {
    expect(entries).toHaveLength(1);
    const steps = [...tripBooking.steps.filter((e) => e.name !== 'book-travel'), entries[0]];
    expect(workflowIssues({ ...tripBooking, steps })).toEqual([]);
  });
});
