import { defineWorkflow, type StepName, type StepResults } from './define-workflow';
import { InvalidWorkflowError } from './errors/invalid-workflow-error';
import { WorkflowRegistry } from './workflow-registry';
import { taskSteps } from './workflow-entries';

const shop = {
  name: 'shop',
  version: 1,
  steps: [
    { name: 'reserve-inventory', agent: 'inventory', operation: 'reserve', compensation: 'release', completeByMs: 5000, retry: {} },
    { name: 'create-shipment', agent: 'shipping', operation: 'create', compensation: 'cancel', completeByMs: 5000, retry: { maxAttempts: 3 } },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 60_000,
} as const;

/** The error defineWorkflow throws for `definition`, or a failure if it does not throw. */
function errorOf(definition: unknown): InvalidWorkflowError {
  try {
    defineWorkflow(definition as Parameters<typeof defineWorkflow>[0]);
  } catch (e) {
    if (e instanceof InvalidWorkflowError) return e;
    throw e;
  }
  throw new Error('defineWorkflow accepted an invalid definition');
}

describe('defineWorkflow', () => {
  it('returns the definition with the retry defaults filled in, ready to register', () => {
    const workflow = defineWorkflow(shop);
    expect(taskSteps(workflow).map((s) => s.retry)).toEqual([
      { maxAttempts: 5, initialBackoffMs: 100, maxBackoffMs: 2000, multiplier: 2, jitter: 0.5 },
      { maxAttempts: 3, initialBackoffMs: 100, maxBackoffMs: 2000, multiplier: 2, jitter: 0.5 },
    ]);
    expect(new WorkflowRegistry([workflow]).list()).toEqual(['shop@1']);
  });

  it('types the step names as literals, so results are read by name with the compiler checking it', () => {
    const workflow = defineWorkflow(shop);
    expect(workflow.steps.map((s) => s.name)).toEqual(['reserve-inventory', 'create-shipment']);
    const name: StepName<typeof workflow> = 'reserve-inventory';
    const results: StepResults<typeof workflow> = { 'reserve-inventory': { reservationId: 'rsv-1' } };
    // @ts-expect-error 'charge-payment' is not a step of this workflow
    const unknown: StepName<typeof workflow> = 'charge-payment';
    expect([name, unknown]).toEqual(['reserve-inventory', 'charge-payment']);
    expect(results['reserve-inventory']?.['reservationId']).toBe('rsv-1');
    expect(results['create-shipment']).toBeUndefined();
  });

  it('infers literal step names from an inline definition too', () => {
    const inline = defineWorkflow({ ...shop, steps: [{ ...shop.steps[0], name: 'only-step' }] });
    expect(inline.steps[0]?.name).toBe('only-step');
    const name: StepName<typeof inline> = 'only-step';
    // @ts-expect-error the step is called only-step
    const wrong: StepName<typeof inline> = 'reserve-inventory';
    expect([name, wrong]).toHaveLength(2);
  });

  it('types the names of parallel group members, waits and signal steps too', () => {
    const [reserve, ship] = shop.steps;
    const workflow = defineWorkflow({
      ...shop,
      steps: [
        { name: 'prepare', parallel: [reserve, ship] },
        { name: 'confirm', signal: { name: 'confirmed', timeoutMs: 1000, onTimeout: 'compensate' } },
        { name: 'cool-off', wait: { ms: 1000 } },
      ],
    });
    const member: StepName<typeof workflow> = 'create-shipment';
    const results: StepResults<typeof workflow> = { 'reserve-inventory': {}, confirm: { ok: true } };
    // @ts-expect-error 'charge-payment' is not a step of this workflow
    const unknown: StepName<typeof workflow> = 'charge-payment';
    expect([member, unknown, Object.keys(results)]).toEqual(['create-shipment', 'charge-payment', ['reserve-inventory', 'confirm']]);
    expect(taskSteps(workflow).map((s) => s.retry.maxAttempts)).toEqual([5, 3]);
  });

  it('throws an InvalidWorkflowError that names each bad field with its path', () => {
    const steps = [{ ...shop.steps[0], completeByMs: '5000' }, { ...shop.steps[1], name: 'Create Shipment' }];
    const error = errorOf({ ...shop, steps, onPermanentFailure: 'retry' });
    expect(error.issues).toEqual([
      'steps[0].completeByMs: Expected number, received string',
      'steps[1].name: step names are lower-case words joined by -',
      "onPermanentFailure: Invalid enum value. Expected 'compensate' | 'error', received 'retry'",
    ]);
    expect(error.workflow).toBe('shop');
    expect(error.message).toBe(`Workflow 'shop' is invalid; fix: ${error.issues.join('; ')}`);
  });

  it('names a workflow-wide problem and a workflow without a name', () => {
    const error = errorOf({ ...shop, name: '', steps: [shop.steps[0], shop.steps[0]] });
    expect(error.issues).toEqual(['name: workflow names are lower-case words joined by -', "(workflow): step name 'reserve-inventory' is used twice"]);
    expect(error.message).toMatch(/^Workflow \(unnamed\) is invalid; fix: name: /);
  });
});
