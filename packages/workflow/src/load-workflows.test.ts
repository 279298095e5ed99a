import { loadWorkflows } from './load-workflows';
import { orderFulfilmentV1 } from './order-fulfilment';
import { taskSteps } from './workflow-entries';

/** The message loadWorkflows throws for `json`, or a failure if it does not throw. */
function failureOf(json: string): string {
  try {
    loadWorkflows(json);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`loadWorkflows accepted ${json}`);
}

describe('loadWorkflows', () => {
  it('holds the built-in workflows when no file is given', () => {
    for (const registry of [loadWorkflows(), loadWorkflows('')]) {
      expect(registry.list().sort()).toEqual(['order-fulfilment-manual@1', 'order-fulfilment@1']);
    }
  });

  it('adds the definitions of the file to the built-in ones', () => {
    const json = JSON.stringify([{ ...orderFulfilmentV1, version: 2, failureThreshold: 4 }]);
    const registry = loadWorkflows(json);
    expect(registry.find('order-fulfilment')?.failureThreshold).toBe(4);
    expect(registry.find('order-fulfilment', 1)?.failureThreshold).toBe(3);
    expect(registry.find('order-fulfilment-manual', 1)).toBeDefined();
  });

  it('fills the retry defaults of a step that gives an empty retry policy', () => {
    const steps = orderFulfilmentV1.steps.map((s) => ({ ...s, retry: {} }));
    const registry = loadWorkflows(JSON.stringify([{ ...orderFulfilmentV1, name: 'defaults', steps }]));
    expect(taskSteps(registry.get('defaults', 1))[0]?.retry).toEqual({
      maxAttempts: 5,
      initialBackoffMs: 100,
      maxBackoffMs: 2000,
      multiplier: 2,
      jitter: 0.5,
    });
  });

  it('says the file is not JSON, with the parser message', () => {
    expect(failureOf('[{"name": ')).toMatch(/^WORKFLOWS_FILE is not valid JSON: \S/);
  });

  it('says the file must hold an array', () => {
    expect(failureOf('{}')).toBe(
      'WORKFLOWS_FILE has invalid workflow definitions: workflows: Expected array, received object',
    );
  });

  it('lists every issue of an invalid definition with its path', () => {
    const bad = { name: 'Order Fulfilment', version: 0, steps: [], onPermanentFailure: 'retry' };
    expect(failureOf(JSON.stringify([bad]))).toBe(
      'WORKFLOWS_FILE has invalid workflow definitions: ' +
        'workflows[0].name: workflow names are lower-case words joined by -; ' +
        'workflows[0].version: Number must be greater than 0; ' +
        'workflows[0].steps: Array must contain at least 1 element(s); ' +
        'workflows[0].failureThreshold: Required; ' +
        'workflows[0].onThreshold: Required; ' +
        "workflows[0].onPermanentFailure: Invalid enum value. Expected 'compensate' | 'error', received 'retry'; " +
        'workflows[0].retentionMs: Required',
    );
  });

  it('names a bad step and a bad threshold policy by their path', () => {
    const steps = [{ ...orderFulfilmentV1.steps[0], name: 'Reserve', agent: 'Inventory', completeByMs: -1 }];
    const bad = {
      ...orderFulfilmentV1,
      name: 'steps-bad',
      steps,
      onThreshold: { policy: 'wait', waitMs: 1000 },
    };
    expect(failureOf(JSON.stringify([bad]))).toBe(
      'WORKFLOWS_FILE has invalid workflow definitions: ' +
        'workflows[0].steps[0].name: step names are lower-case words joined by -; ' +
        'workflows[0].steps[0].agent: agent names are lower-case words joined by -; ' +
        'workflows[0].steps[0].completeByMs: Number must be greater than 0; ' +
        'workflows[0].onThreshold.maxWaits: Required',
    );
  });

  it('refuses a misspelt key, naming its path and the key it most likely meant', () => {
    const { failureThreshold, ...rest } = orderFulfilmentV1;
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 1 ? { ...s, retry: { ...s.retry, maxAttemps: 3 } } : s));
    const json = JSON.stringify([{ ...rest, name: 'typo', failureTreshold: failureThreshold, failureThreshold, steps }]);
    expect(failureOf(json)).toBe(
      'WORKFLOWS_FILE has invalid workflow definitions: ' +
        "workflows[0].steps[1].retry: unknown key 'maxAttemps' (did you mean 'maxAttempts'?); " +
        "workflows[0]: unknown key 'failureTreshold' (did you mean 'failureThreshold'?)",
    );
  });

  it('rejects a workflow that uses a step name twice', () => {
    const steps = [orderFulfilmentV1.steps[0], orderFulfilmentV1.steps[0]];
    expect(failureOf(JSON.stringify([{ ...orderFulfilmentV1, name: 'twice', steps }]))).toBe(
      "WORKFLOWS_FILE has invalid workflow definitions: workflows[0]: step name 'reserve-inventory' is used twice",
    );
  });

  it('rejects a file that redefines a built-in version', () => {
    expect(failureOf(JSON.stringify([orderFulfilmentV1]))).toBe(
      'Workflow order-fulfilment v1 is registered twice; publish changes as a new version',
    );
  });
});
