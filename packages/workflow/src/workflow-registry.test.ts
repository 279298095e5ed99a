import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import type { WorkflowDefinition } from './workflow-definition';
import { WorkflowRegistry } from './workflow-registry';

const v2: WorkflowDefinition = { ...orderFulfilmentV1, version: 2, failureThreshold: 5 };
const v3: WorkflowDefinition = { ...orderFulfilmentV1, version: 3, failureThreshold: 7 };

describe('WorkflowRegistry', () => {
  it('finds the newest version of a workflow when no version is asked for', () => {
    // Registered out of order on purpose: newest means highest version, not last registered.
    const registry = new WorkflowRegistry([v3, orderFulfilmentV1, v2]);
    expect(registry.find('order-fulfilment')?.version).toBe(3);
    expect(registry.find('order-fulfilment')?.failureThreshold).toBe(7);
  });

  it('finds a pinned version, so in-flight processes keep the version they started with', () => {
    const registry = new WorkflowRegistry([orderFulfilmentV1, v2]);
    expect(registry.find('order-fulfilment', 1)).toEqual(orderFulfilmentV1);
    expect(registry.get('order-fulfilment', 2)).toEqual(v2);
  });

  it('answers undefined for an unknown workflow or version', () => {
    const registry = new WorkflowRegistry([orderFulfilmentV1]);
    expect(registry.find('no-such-workflow')).toBeUndefined();
    expect(registry.find('no-such-workflow', 1)).toBeUndefined();
    expect(registry.find('order-fulfilment', 2)).toBeUndefined();
  });

  it('throws from get for an unknown version and says what to deploy', () => {
    const registry = new WorkflowRegistry([orderFulfilmentV1]);
    expect(() => registry.get('order-fulfilment', 9)).toThrow(
      'Workflow order-fulfilment v9 is not registered here; deploy a build that still has it',
    );
  });

  it('rejects a second registration of the same name and version', () => {
    const registry = new WorkflowRegistry([orderFulfilmentV1]);
    expect(() => registry.register({ ...orderFulfilmentV1, failureThreshold: 9 })).toThrow(
      'Workflow order-fulfilment v1 is registered twice; publish changes as a new version',
    );
    expect(registry.get('order-fulfilment', 1).failureThreshold).toBe(3);
  });

  it('validates what it registers', () => {
    const registry = new WorkflowRegistry();
    const bad = { ...orderFulfilmentV1, name: 'Bad Name' };
    expect(() => registry.register(bad)).toThrow('workflow names are lower-case words joined by -');
    expect(registry.find('Bad Name')).toBeUndefined();
  });

  it('lists every registered name@version', () => {
    const registry = new WorkflowRegistry([orderFulfilmentV1, orderFulfilmentManualV1]).register(v2);
    expect(registry.list().sort()).toEqual([
      'order-fulfilment-manual@1',
      'order-fulfilment@1',
      'order-fulfilment@2',
    ]);
  });
});
