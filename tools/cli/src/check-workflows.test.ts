import { orderFulfilmentV1 } from '@sas/workflow';
import { checkWorkflows } from './check-workflows';

const shop = { ...orderFulfilmentV1, name: 'shop', version: 1 };
const check = (value: unknown): ReturnType<typeof checkWorkflows> => checkWorkflows(JSON.stringify(value), 'workflows.json');

describe('checkWorkflows', () => {
  it('prints one summary line per valid workflow', () => {
    const waiting = { ...shop, name: 'waiting', onThreshold: { policy: 'wait', waitMs: 30_000, maxWaits: 2 }, parking: { maxParkedMs: 60_000 } };
    expect(check([shop, waiting])).toEqual({
      ok: true,
      lines: [
        'ok shop@1: 3 step(s) (reserve-inventory → charge-payment → create-shipment), threshold 3 then compensate, refusals compensate, parked at most 1800000 ms',
        'ok waiting@1: 3 step(s) (reserve-inventory → charge-payment → create-shipment), threshold 3 then wait 30000 ms (at most 2 times), refusals compensate, parked at most 60000 ms',
      ],
    });
  });

  it('names the members of a parallel group and counts each as a step', () => {
    const [reserve, charge, ship] = orderFulfilmentV1.steps;
    const grouped = { ...shop, name: 'grouped', steps: [reserve, { name: 'pay-and-ship', parallel: [charge, ship] }] };
    expect(check([grouped]).lines).toEqual([
      'ok grouped@1: 3 step(s) (reserve-inventory → pay-and-ship [charge-payment + create-shipment]), threshold 3 then compensate, refusals compensate, parked at most 1800000 ms',
    ]);
  });

  it('prints a condition that is not CEL with a caret under the column where it goes wrong', () => {
    const [reserve, ...rest] = orderFulfilmentV1.steps;
    const bad = { ...shop, steps: [{ ...reserve, condition: 'payload.amount >' }, ...rest] };
    expect(check([bad]).lines.join('\n')).toBe(
      'workflows[0].steps[0].condition: not a valid CEL expression: Unexpected token: EOF\n' +
        '    payload.amount >\n' +
        '                    ^',
    );
  });

  it('accepts an empty file: the services then run the built-in workflows only', () => {
    expect(check([])).toEqual({ ok: true, lines: [] });
  });

  it('names every bad field of every definition with its path', () => {
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 2 ? { ...s, completeByMs: '5000' } : s));
    const second = { ...shop, name: 'second', steps, onThreshold: { policy: 'wait', waitMs: 1000 } };
    const third = { ...shop, name: 'Third', retentionMs: undefined };
    expect(check([shop, second, third])).toEqual({
      ok: false,
      lines: [
        'workflows[1].steps[2].completeByMs: Expected number, received string',
        'workflows[1].onThreshold.maxWaits: Required',
        'workflows[2].name: workflow names are lower-case words joined by -',
        'workflows[2].retentionMs: Required',
      ],
    });
  });

  it('refuses unknown keys at every level, naming the path and the key meant when one is close', () => {
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 0 ? { ...s, completeBy: 5000 } : s));
    const typo = { ...shop, failureTreshold: 3, steps, onThreshold: { policy: 'compensate', waitMs: 10 }, parking: { maxParkedMS: 1 }, owner: 'team-a' };
    expect(check([typo])).toEqual({
      ok: false,
      lines: [
        "workflows[0].steps[0]: unknown key 'completeBy' (did you mean 'completeByMs'?)",
        "workflows[0].onThreshold: unknown key 'waitMs'; the keys here are policy",
        'workflows[0].parking.maxParkedMs: Required',
        "workflows[0].parking: unknown key 'maxParkedMS' (did you mean 'maxParkedMs'?)",
        "workflows[0]: unknown keys 'failureTreshold' (did you mean 'failureThreshold'?), 'owner'; the keys here are name, version, steps, failureThreshold, onThreshold, onPermanentFailure, retentionMs, parking, inputSchema",
      ],
    });
  });

  it('names a definition that uses a step name twice', () => {
    const steps = [orderFulfilmentV1.steps[0], orderFulfilmentV1.steps[0]];
    expect(check([{ ...shop, steps }]).lines).toEqual(["workflows[0]: step name 'reserve-inventory' is used twice"]);
  });

  it('refuses a name and version used twice, or taken by a built-in workflow, as the services would', () => {
    expect(check([shop, { ...shop, failureThreshold: 5 }, orderFulfilmentV1])).toEqual({
      ok: false,
      lines: [
        'workflows[1]: Workflow shop v1 is registered twice; publish changes as a new version',
        'workflows[2]: Workflow order-fulfilment v1 is registered twice; publish changes as a new version',
      ],
    });
  });

  it('refuses an input schema that does not compile, naming the workflow, and says when one is checked', () => {
    const typo = { ...shop, inputSchema: { type: 'object', requried: ['amount'] } };
    expect(check([typo])).toEqual({
      ok: false,
      lines: [`workflows[0]: Workflow 'shop' v1 has an invalid inputSchema: strict mode: unknown keyword: "requried"; fix the schema (JSON Schema draft-07) and load again`],
    });
    const checked = check([{ ...shop, inputSchema: { type: 'object', required: ['amount'] } }]);
    expect(checked.lines[0]).toMatch(/, payload checked by its inputSchema$/);
  });

  it('says when the file is not JSON, or not an array', () => {
    expect(checkWorkflows('[{"name": ', 'w.json')).toEqual({ ok: false, lines: [expect.stringMatching(/^w\.json is not valid JSON: \S/)] });
    expect(check({ workflows: [shop] })).toEqual({ ok: false, lines: ['workflows: Expected an array of workflow definitions, received object'] });
  });
});
