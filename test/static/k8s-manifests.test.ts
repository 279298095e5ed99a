import { QueueNames } from '@sas/contracts';
import { isYamlMap, type YamlMap } from './yaml-document';
import { at, effectiveEnv, manifestFiles, mapsAt, probePort, readManifests, type Manifest } from './k8s-manifests';
import {
  commonConfigKeys,
  declaredEnv,
  readYaml,
  remoteServiceNames,
  runnableServices,
  servesReadyz,
  shutdownTimeoutMs,
} from './workspace-facts';

/** deploy/k8s checked against the workspace and against itself (names, ports, env). */

const manifests = readManifests();
const scaledObjects = readManifests('keda');
const deployments = manifests.filter((m) => m.kind === 'Deployment');
const configMap = manifests.find((m) => m.kind === 'ConfigMap' && m.name === 'sas-common');
const commonData = at(configMap?.doc, 'data');

/** The single container of a Deployment, with the service directory its SERVICE env names. */
function containerOf(m: Manifest): { container: YamlMap; service: string; env: ReturnType<typeof effectiveEnv> } {
  const containers = mapsAt(m.doc, 'spec.template.spec.containers');
  const container = containers[0];
  if (containers.length !== 1 || !container) throw new Error(`${m.file}: Deployment ${m.name} must have exactly one container`);
  const env = effectiveEnv(container, manifests);
  return { container, service: String(env.values.get('SERVICE')), env };
}

function agentDeployment(agent: string): Manifest | undefined {
  return deployments.find((d) => containerOf(d).service === 'agent' && containerOf(d).env.values.get('AGENT') === agent);
}

describe('the Kubernetes manifests in deploy/k8s', () => {
  it('are all listed in kustomization.yaml, and everything listed exists', () => {
    const resources = at(readYaml('deploy/k8s/kustomization.yaml'), 'resources');
    const files = manifestFiles().filter((f) => f !== 'kustomization.yaml');
    expect(Array.isArray(resources) ? [...resources].sort() : resources).toEqual(files);
  });

  it('put every namespaced object in the namespace they create', () => {
    const namespace = manifests.find((m) => m.kind === 'Namespace')?.name;
    expect(namespace).toBe('sas');
    const elsewhere = [...manifests, ...scaledObjects]
      .filter((m) => m.kind !== 'Namespace' && m.kind !== 'Kustomization' && at(m.doc, 'metadata.namespace') !== namespace)
      .map((m) => `${m.file}: ${m.kind} ${m.name}`);
    expect(elsewhere).toEqual([]);
  });

  it('keep shared settings in a ConfigMap of strings holding only CommonConfig variables', () => {
    expect(isYamlMap(commonData)).toBe(true);
    const entries = Object.entries(isYamlMap(commonData) ? commonData : {});
    expect(entries.filter(([, v]) => typeof v !== 'string').map(([k]) => k)).toEqual([]);
    expect(entries.map(([k]) => k).filter((k) => !commonConfigKeys().has(k))).toEqual([]);
    // Redis Cluster: a hash tag keeps every BullMQ key of the system in one slot.
    expect(at(commonData, 'QUEUE_PREFIX')).toMatch(/^\{[^{}]+\}/);
  });

  it('run every service that has a src/main.ts, each Deployment naming an existing one', () => {
    const services = new Set(deployments.map((d) => containerOf(d).service));
    const missing = runnableServices()
      .filter((dir) => !services.has(dir))
      .map((dir) => `services/${dir} has src/main.ts but no Deployment sets SERVICE=${dir}`);
    const unknown = deployments
      .filter((d) => !runnableServices().includes(containerOf(d).service))
      .map((d) => `${d.file}: SERVICE=${containerOf(d).service} has no services/<dir>/src/main.ts`);
    expect([...missing, ...unknown]).toEqual([]);
  });

  it('run one image for every service, chosen by SERVICE', () => {
    const images = new Set(deployments.map((d) => String(containerOf(d).container['image'])));
    expect(images.size).toBe(1);
    for (const d of deployments) expect(containerOf(d).container['command']).toBeUndefined();
  });

  it('set only environment variables the service’s config declares (plus SERVICE for the entrypoint), as strings', () => {
    const problems = deployments.flatMap((d) => {
      const { service, env, container } = containerOf(d);
      const declared = declaredEnv(service);
      const literal = mapsAt(container, 'env').filter((e) => 'value' in e);
      return [
        ...[...env.values.keys()].filter((k) => k !== 'SERVICE' && !declared.has(k)).map((k) => `${d.name}: ${k} is not declared by services/${service}`),
        ...mapsAt(container, 'env').filter((e) => !('value' in e) && !declared.has(String(e['name']))).map((e) => `${d.name}: ${String(e['name'])} is not declared`),
        ...literal.filter((e) => typeof e['value'] !== 'string').map((e) => `${d.name}: ${String(e['name'])} is not a string`),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('probe /healthz and /readyz on the port that serves them: PROBE_PORT, else the service’s own PORT', () => {
    for (const d of deployments) {
      const { container, service, env } = containerOf(d);
      const probePortValue = Number(env.values.get('PROBE_PORT'));
      const port = probePortValue > 0 ? probePortValue : Number(env.values.get('PORT'));
      const seen = ['startupProbe', 'livenessProbe', 'readinessProbe']
        .filter((p) => at(container, p) !== undefined)
        .map((p) => ({ probe: p, path: at(container, `${p}.httpGet.path`), port: probePort(container, p) }));
      const expected = [
        ...(at(container, 'startupProbe') === undefined ? [] : [{ probe: 'startupProbe', path: '/healthz', port }]),
        { probe: 'livenessProbe', path: '/healthz', port },
        { probe: 'readinessProbe', path: servesReadyz(service) ? '/readyz' : '/healthz', port },
      ];
      expect({ deployment: d.name, probes: seen }).toEqual({ deployment: d.name, probes: expected });
      expect({ deployment: d.name, port: port > 0 }).toEqual({ deployment: d.name, port: true });
    }
  });

  it('give pods longer to stop than the services’ shutdown timeout, resource requests and limits, and no root', () => {
    for (const d of deployments) {
      const { container } = containerOf(d);
      const grace = Number(at(d.doc, 'spec.template.spec.terminationGracePeriodSeconds'));
      expect({ name: d.name, outlastsShutdown: grace * 1000 > shutdownTimeoutMs() }).toEqual({ name: d.name, outlastsShutdown: true });
      for (const path of ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']) {
        expect({ name: d.name, path, set: typeof at(container, `resources.${path}`) === 'string' }).toEqual({ name: d.name, path, set: true });
      }
      expect({ name: d.name, nonRoot: at(d.doc, 'spec.template.spec.securityContext.runAsNonRoot') }).toEqual({ name: d.name, nonRoot: true });
    }
  });

  it('select their own pods', () => {
    for (const d of deployments) {
      const selector = at(d.doc, 'spec.selector.matchLabels');
      const labels = at(d.doc, 'spec.template.metadata.labels');
      expect(isYamlMap(selector) && Object.keys(selector).length > 0).toBe(true);
      expect(labels).toEqual(expect.objectContaining(isYamlMap(selector) ? selector : {}));
    }
  });

  it('run two schedulers, two supervisors and two of each agent, one per remote service', () => {
    const replicasOf = (service: string): unknown[] =>
      deployments.filter((d) => containerOf(d).service === service).map((d) => at(d.doc, 'spec.replicas'));
    expect({ scheduler: replicasOf('scheduler'), supervisor: replicasOf('supervisor') }).toEqual({ scheduler: [2], supervisor: [2] });
    for (const agent of remoteServiceNames()) {
      const d = agentDeployment(agent);
      expect({ agent, deployment: d?.name, replicas: at(d?.doc, 'spec.replicas') }).toEqual({ agent, deployment: `agent-${agent}`, replicas: 2 });
    }
  });

  it('point agents at a Service that reaches remote-sim’s port', () => {
    for (const agent of remoteServiceNames()) {
      const d = agentDeployment(agent);
      const url = new URL(String(d && containerOf(d).env.values.get('REMOTE_URL')));
      const service = manifests.find((m) => m.kind === 'Service' && m.name === url.hostname);
      const port = mapsAt(service?.doc, 'spec.ports').find((p) => p['port'] === Number(url.port));
      const sim = deployments.find((m) => containerOf(m).service === 'remote-sim');
      const target = sim && mapsAt(containerOf(sim).container, 'ports').find((p) => p['name'] === port?.['targetPort']);
      expect({ agent, reaches: target?.['containerPort'] }).toEqual({ agent, reaches: Number(sim && containerOf(sim).env.values.get('PORT')) });
      expect(at(service?.doc, 'spec.selector')).toEqual(at(sim?.doc, 'spec.selector.matchLabels'));
    }
  });
});

describe('the KEDA example in deploy/k8s/keda', () => {
  it('scales an agent Deployment on its BullMQ wait list in the Redis the ConfigMap names', () => {
    const objects = scaledObjects.filter((m) => m.kind === 'ScaledObject');
    expect(objects.map((o) => o.name)).toContain('agent-payment');
    const redis = new URL(String(at(commonData, 'REDIS_URL')));
    for (const o of objects) {
      const target = deployments.find((d) => d.name === at(o.doc, 'spec.scaleTargetRef.name'));
      expect(target && containerOf(target).service).toBe('agent');
      const agent = String(target && containerOf(target).env.values.get('AGENT'));
      const trigger = mapsAt(o.doc, 'spec.triggers')[0];
      expect({
        type: trigger?.['type'],
        address: at(trigger, 'metadata.address'),
        listName: at(trigger, 'metadata.listName'),
      }).toEqual({
        type: 'redis',
        address: `${redis.hostname}:${redis.port || '6379'}`,
        listName: `${String(at(commonData, 'QUEUE_PREFIX'))}:${QueueNames.agentRequests(agent)}:wait`,
      });
      expect(String(at(trigger, 'metadata.listLength'))).toMatch(/^[1-9]\d*$/);
    }
  });
});
