import type { Manifest } from './k8s-manifests';
import { readManifests } from './k8s-manifests';
import { renderKustomization } from './kustomize-render';
import { modelModule, schemaProblems } from './k8s-schema';
import { isYamlMap, type YamlMap, type YamlValue } from './yaml-document';

/**
 * What `kubectl apply` would send, checked against the API schemas: the rendered kustomizations
 * of deploy/k8s and deploy/k8s/keda, and the example Secrets (applied by hand, so checked too).
 */

const rendered = [
  ...renderKustomization('deploy/k8s'),
  ...renderKustomization('deploy/k8s/keda'),
  ...readManifests().filter((m) => m.file === 'secret.example.yaml'),
];

function find(kind: string, name: string): Manifest {
  const found = rendered.find((m) => m.kind === kind && m.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return found;
}

/** A copy of `m` with the value at `path` (dots and [i]) set to `value`, or deleted when undefined. */
function withValue(m: Manifest, path: string, value: YamlValue | undefined): Manifest {
  const doc = structuredClone(m.doc);
  const keys = path.split('.').flatMap((part) => part.split(/\[(\d+)\]/).filter((k) => k !== ''));
  let parent: YamlValue = doc;
  for (const key of keys.slice(0, -1)) parent = Array.isArray(parent) ? (parent[Number(key)] ?? null) : isYamlMap(parent) ? (parent[key] ?? null) : null;
  const last = keys[keys.length - 1] ?? '';
  if (!isYamlMap(parent) && !Array.isArray(parent)) throw new Error(`${path}: no such parent in ${m.name}`);
  if (Array.isArray(parent)) parent[Number(last)] = value ?? null;
  else if (value === undefined) delete (parent as YamlMap)[last];
  else (parent as YamlMap)[last] = value;
  return { ...m, doc };
}

describe('the manifests against the Kubernetes and KEDA API schemas', () => {
  it('render to every kind a deployment of sas needs', () => {
    const kinds = new Set(rendered.map((m) => m.kind));
    expect([...kinds].sort()).toEqual(['ConfigMap', 'Deployment', 'Namespace', 'PodDisruptionBudget', 'ScaledObject', 'Secret', 'Service']);
  });

  it('are all valid: types, required fields, formats, and no field the API does not know', () => {
    expect(schemaProblems(rendered)).toEqual([]);
  });

  describe('each kind of mistake is found, with the object and the path named', () => {
    const deployment = find('Deployment', 'agent-payment');
    const container = 'spec.template.spec.containers[0]';

    it('a misspelt field at any depth (kubectl refuses it under strict field validation)', () => {
      const misspelt = withValue(withValue(deployment, `${container}.readinesProbe`, { httpGet: { path: '/readyz', port: 'probe' } }), 'spec.replica', 2);
      expect(schemaProblems([misspelt])).toEqual([
        expect.stringMatching(/^agent-payment\.yaml: Deployment agent-payment: spec\.template\.spec\.containers\[0\]\.readinesProbe: unknown field 'readinesProbe' \(IContainer has .*readinessProbe/),
        expect.stringMatching(/^agent-payment\.yaml: Deployment agent-payment: spec\.replica: unknown field 'replica' \(IDeploymentSpec has .*replicas/),
      ]);
    });

    it('a value of the wrong type, a bad quantity and a missing required field', () => {
      expect(schemaProblems([withValue(deployment, 'spec.replicas', '2')])).toEqual([expect.stringContaining('data/spec/replicas must be integer')]);
      expect(schemaProblems([withValue(deployment, `${container}.resources.limits.memory`, '384 MB')])).toEqual([
        expect.stringContaining(`data/spec/template/spec/containers/0/resources/limits/memory must match format "quantity"`),
      ]);
      expect(schemaProblems([withValue(deployment, `${container}.name`, undefined)])).toEqual([expect.stringContaining('containers/0 must have required property name')]);
    });

    it('in a PodDisruptionBudget, a Service and a ConfigMap', () => {
      expect(schemaProblems([withValue(find('PodDisruptionBudget', 'supervisor'), 'spec.maxUnavailable', true)])).toEqual([expect.stringContaining('data/spec/maxUnavailable')]);
      expect(schemaProblems([withValue(find('Service', 'dashboard'), 'spec.ports[0].targetport', 'http')])).toEqual([expect.stringContaining("unknown field 'targetport'")]);
      expect(schemaProblems([withValue(find('ConfigMap', 'sas-common'), 'data.PROBE_PORT', 9100)])).toEqual([expect.stringContaining('data/data/PROBE_PORT must be string')]);
    });

    it('in a KEDA ScaledObject: an unknown field, and a trigger setting that is not a string', () => {
      const scaled = find('ScaledObject', 'agent-payment');
      expect(schemaProblems([withValue(scaled, 'spec.minReplicas', 2)])).toEqual([expect.stringContaining("spec.minReplicas: unknown field 'minReplicas'")]);
      expect(schemaProblems([withValue(scaled, 'spec.triggers[0].metadata.threshold', 16)])).toEqual([expect.stringContaining('data/spec/triggers/0/metadata/threshold must be string')]);
    });

    it('a kind no models package describes', () => {
      const unknown: Manifest = { file: 'x.yaml', kind: 'Widget', name: 'w', doc: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } };
      expect(schemaProblems([unknown])).toEqual([
        'x.yaml: Widget w: no schema for example.com/v1 Widget (kubernetes-models/example.com/v1/Widget); add the models package of its API group to CRD_PACKAGES',
      ]);
    });
  });

  it('looks core, grouped and KEDA kinds up in their packages', () => {
    expect(modelModule('v1', 'ConfigMap')).toBe('kubernetes-models/v1/ConfigMap');
    expect(modelModule('policy/v1', 'PodDisruptionBudget')).toBe('kubernetes-models/policy/v1/PodDisruptionBudget');
    expect(modelModule('keda.sh/v1alpha1', 'ScaledObject')).toBe('@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject');
  });
});
