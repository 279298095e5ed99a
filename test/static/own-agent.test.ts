import { AgentConfig } from '@sas/agent';
import { QueueNames } from '@sas/contracts';
import { DEPTH_STATES } from '@sas/dashboard';
import { loadConfig } from '@sas/runtime';
import { labelMatches, parseQueueDepthQuery } from './keda-query';
import { at, mapsAt, podEnvironment, probePort, readManifests } from './k8s-manifests';
import { schemaProblems } from './k8s-schema';
import { renderKustomization } from './kustomize-render';
import { agentConfigKeys, shutdownTimeoutMs } from './workspace-facts';

/**
 * deploy/k8s/own-agent: the template for an agent written with @sas/agent, on an image of its own.
 * It must run as the built-in agents do (same ConfigMap and Secret, probes, security, disruption
 * budget) and its ScaledObject must read its own queue.
 */

const core = renderKustomization('deploy/k8s');
const template = renderKustomization('deploy/k8s/own-agent');
const scaling = renderKustomization('deploy/k8s/own-agent/keda');
const exampleSecrets = readManifests().filter((m) => m.file === 'secret.example.yaml');
const deployment = template.find((m) => m.kind === 'Deployment');
const container = mapsAt(deployment?.doc, 'spec.template.spec.containers')[0];

describe('the template for your own agent in deploy/k8s/own-agent', () => {
  it('is valid against the Kubernetes and KEDA schemas, in the namespace of deploy/k8s', () => {
    expect(schemaProblems([...template, ...scaling])).toEqual([]);
    expect([...template, ...scaling].map((m) => at(m.doc, 'metadata.namespace'))).toEqual([...template, ...scaling].map(() => 'sas'));
    expect(template.map((m) => m.kind).sort()).toEqual(['Deployment', 'PodDisruptionBudget']);
  });

  it('runs its own image, not the sas image, with a name kustomization.yaml sets', () => {
    expect(mapsAt(deployment?.doc, 'spec.template.spec.containers').length).toBe(1);
    expect(String(container?.['image'])).toBe('registry.example.com/my-agent:0.1.0');
    expect(container?.['command']).toBeUndefined();
  });

  it('starts: its environment from sas-common and the example Secrets passes the agent library’s config schema, and sets nothing else', () => {
    const { env, unresolved } = podEnvironment(container ?? {}, [...core, ...exampleSecrets], 'my-agent-7d9f8b6c5-x2x4q');
    expect(unresolved).toEqual([]);
    const config = loadConfig(AgentConfig, env);
    expect(config.PROBE_PORT).toBeGreaterThan(0);
    expect(Object.keys(env).filter((k) => !agentConfigKeys().has(k))).toEqual([]);
  });

  it('is probed on PROBE_PORT, stops within its grace period and keeps the restricted profile', () => {
    const { env } = podEnvironment(container ?? {}, [...core, ...exampleSecrets], 'x');
    const port = Number(env['PROBE_PORT']);
    expect(['startupProbe', 'livenessProbe', 'readinessProbe'].map((p) => [p, at(container, `${p}.httpGet.path`), probePort(container ?? {}, p)])).toEqual([
      ['startupProbe', '/healthz', port],
      ['livenessProbe', '/healthz', port],
      ['readinessProbe', '/readyz', port],
    ]);
    expect(Number(at(deployment?.doc, 'spec.template.spec.terminationGracePeriodSeconds')) * 1000).toBeGreaterThan(shutdownTimeoutMs());
    expect(at(deployment?.doc, 'spec.template.spec.securityContext')).toEqual({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(at(container, 'securityContext')).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(at(deployment?.doc, 'spec.template.metadata.annotations')).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });
  });

  it('keeps two replicas and a disruption budget of one pod that selects it', () => {
    const budget = template.find((m) => m.kind === 'PodDisruptionBudget');
    expect(at(deployment?.doc, 'spec.replicas')).toBe(2);
    expect(at(budget?.doc, 'spec.maxUnavailable')).toBe(1);
    expect(at(budget?.doc, 'spec.selector.matchLabels')).toEqual(at(deployment?.doc, 'spec.selector.matchLabels'));
  });

  it('scales on the backlog of the agent’s own queue, agent.<name>.requests, as the built-in agents do', () => {
    const objects = scaling.filter((m) => m.kind === 'ScaledObject');
    expect(objects.map((o) => at(o.doc, 'spec.scaleTargetRef.name'))).toEqual([deployment?.name]);
    const query = parseQueueDepthQuery(String(at(mapsAt(objects[0]?.doc, 'spec.triggers')[0], 'metadata.query')));
    const states = DEPTH_STATES.filter((s) => query.matchers.filter((m) => m.label === 'state').every((m) => labelMatches(m, s)));
    expect({ metric: query.metric, inner: query.inner, by: query.by, queue: query.matchers.filter((m) => m.label === 'queue').map((m) => `${m.op}${m.value}`), states }).toEqual({
      metric: 'sas_queue_jobs',
      inner: 'max',
      by: ['state'],
      queue: [`=${QueueNames.agentRequests(String(deployment?.name))}`],
      states: ['waiting', 'prioritized', 'delayed'],
    });
    expect(at(mapsAt(objects[0]?.doc, 'spec.triggers')[0], 'metadata.ignoreNullValues')).toBe('false');
  });
});
