import { randomBytes } from 'node:crypto';
import { QueueNames } from '@sas/contracts';
import { loadConfig } from '@sas/runtime';
import { DEPTH_STATES, DashboardConfig } from '@sas/dashboard';
import { HttpAgentConfig, HttpMapping, remoteSimMapping } from '@sas/http-agent';
import { loadWorkflows } from '@sas/workflow';
import { RemoteSimConfig } from '@sas/remote-sim';
import { SchedulerConfig } from '@sas/scheduler';
import { SubmissionConfig } from '@sas/submission';
import { SupervisorConfig } from '@sas/supervisor';
import { readDockerfile } from './dockerfile-reader';
import { labelMatches, parseQueueDepthQuery } from './keda-query';
import { at, effectiveEnv, mapsAt, mountedFile, podEnvironment, probePort, quantity, readManifests, type Manifest, type MountedFile } from './k8s-manifests';
import { renderKustomization } from './kustomize-render';
import { isYamlMap, type YamlMap } from './yaml-document';
import { commonConfigKeys, declaredEnv, readText, remoteServiceNames, runnableServices, servesReadyz, shutdownTimeoutMs } from './workspace-facts';

/**
 * deploy/k8s, as `kubectl apply -k` renders it, checked against the workspace and against what a
 * platform team expects of a workload: probes, resources, disruption budgets, the restricted pod
 * security profile, configuration from a ConfigMap and credentials from Secrets.
 */

const manifests = renderKustomization('deploy/k8s');
const scaledObjects = renderKustomization('deploy/k8s/keda');
const exampleSecrets = readManifests().filter((m) => m.file === 'secret.example.yaml');
const deployments = manifests.filter((m) => m.kind === 'Deployment');
const configMap = manifests.find((m) => m.kind === 'ConfigMap' && m.name === 'sas-common');
const commonData = at(configMap?.doc, 'data');

/** The keys that carry credentials: never in a ConfigMap or a manifest, only in Secrets. */
const SECRET_KEYS = ['REDIS_URL', 'MONGO_URL', 'DASHBOARD_TOKENS'];

/** Each runnable service's config schema, as its main.ts loads it. */
const CONFIG_SCHEMAS: Record<string, Parameters<typeof loadConfig>[0]> = {
  agent: HttpAgentConfig,
  dashboard: DashboardConfig,
  'remote-sim': RemoteSimConfig,
  scheduler: SchedulerConfig,
  submission: SubmissionConfig,
  supervisor: SupervisorConfig,
};

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

/** True when every label of `selector` is on the pods of `d`. */
function selects(selector: YamlMap, d: Manifest): boolean {
  const labels = at(d.doc, 'spec.template.metadata.labels');
  return isYamlMap(labels) && Object.entries(selector).every(([k, v]) => labels[k] === v);
}

describe('the Kubernetes manifests in deploy/k8s', () => {
  it('put every namespaced object in the namespace they create, which enforces the restricted pod security profile', () => {
    const namespace = manifests.find((m) => m.kind === 'Namespace');
    expect(namespace?.name).toBe('sas');
    expect(at(namespace?.doc, 'metadata.labels')).toEqual(expect.objectContaining({ 'pod-security.kubernetes.io/enforce': 'restricted' }));
    const elsewhere = [...manifests, ...scaledObjects, ...exampleSecrets]
      .filter((m) => m.kind !== 'Namespace' && at(m.doc, 'metadata.namespace') !== namespace?.name)
      .map((m) => `${m.file}: ${m.kind} ${m.name}`);
    expect(elsewhere).toEqual([]);
  });

  it('keep shared settings in a ConfigMap of strings holding only CommonConfig variables, none of them secret', () => {
    expect(isYamlMap(commonData)).toBe(true);
    const entries = Object.entries(isYamlMap(commonData) ? commonData : {});
    expect(entries.filter(([, v]) => typeof v !== 'string').map(([k]) => k)).toEqual([]);
    expect(entries.map(([k]) => k).filter((k) => !commonConfigKeys().has(k))).toEqual([]);
    expect(entries.map(([k]) => k).filter((k) => SECRET_KEYS.includes(k))).toEqual([]);
    // Redis Cluster: each queue adds its own hash tag (decision 55); a tag here would put every queue in one slot.
    expect(at(commonData, 'QUEUE_PREFIX')).toMatch(/^[A-Za-z0-9._-]+$/);
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

  it('start every service: its environment, with the example Secrets, passes the service’s own config schema', () => {
    expect(Object.keys(CONFIG_SCHEMAS).sort()).toEqual(runnableServices());
    const problems = deployments.flatMap((d) => {
      const { container, service } = containerOf(d);
      const { env, unresolved } = podEnvironment(container, [...manifests, ...exampleSecrets], `${d.name}-7d9f8b6c5-x2x4q`);
      const schema = CONFIG_SCHEMAS[service];
      if (!schema) return [`${d.name}: no config schema for services/${service}`];
      // The example Secret's token is a placeholder the dashboard refuses by name (next test): a real one stands in.
      const started = service === 'dashboard' ? { ...env, DASHBOARD_TOKENS: `operator:${randomBytes(32).toString('base64')}` } : env;
      try {
        loadConfig(schema, started);
        return unresolved.map((u) => `${d.name}: ${u} is not defined`);
      } catch (error) {
        return [`${d.name}: ${error instanceof Error ? error.message : String(error)}`];
      }
    });
    expect(problems).toEqual([]);
  });

  it('refuse to start the dashboard with the example Secret’s token placeholder left in, saying how to make a token', () => {
    const d = deployments.find((m) => containerOf(m).service === 'dashboard')!;
    const { env } = podEnvironment(containerOf(d).container, [...manifests, ...exampleSecrets], `${d.name}-7d9f8b6c5-x2x4q`);
    expect(env['DASHBOARD_TOKENS']).toContain('CHANGE-ME');
    expect(() => loadConfig(DashboardConfig, env)).toThrow(/DASHBOARD_TOKENS\.0: the operator token is too weak: it is the deployment examples' placeholder.*openssl rand -base64 32/);
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

  it('give pods longer to stop than the services’ own shutdown deadline (10 s in installShutdown)', () => {
    expect(shutdownTimeoutMs()).toBe(10_000);
    for (const d of deployments) {
      const grace = Number(at(d.doc, 'spec.template.spec.terminationGracePeriodSeconds'));
      expect({ name: d.name, outlastsShutdown: grace * 1000 > shutdownTimeoutMs() }).toEqual({ name: d.name, outlastsShutdown: true });
    }
  });

  it('request and limit CPU and memory, requests no higher than limits', () => {
    for (const d of deployments) {
      const { container } = containerOf(d);
      for (const resource of ['cpu', 'memory']) {
        const request = at(container, `resources.requests.${resource}`);
        const limit = at(container, `resources.limits.${resource}`);
        expect({ name: d.name, resource, set: typeof request === 'string' && typeof limit === 'string' }).toEqual({ name: d.name, resource, set: true });
        expect({ name: d.name, resource, requestWithinLimit: quantity(request) <= quantity(limit) }).toEqual({ name: d.name, resource, requestWithinLimit: true });
      }
    }
  });

  it('meet the restricted pod security profile, as the image’s own numeric non-root user', () => {
    const dockerfile = readDockerfile(readText('deploy/Dockerfile'));
    const user = dockerfile.stages[dockerfile.stages.length - 1]?.instructions.filter((i) => i.keyword === 'USER').pop()?.args ?? '';
    const [uid, gid] = user.split(':').map(Number);
    expect({ user, numericNonRoot: Number.isInteger(uid) && (uid ?? 0) > 0 && Number.isInteger(gid) }).toEqual({ user, numericNonRoot: true });
    const allowedVolumes = ['emptyDir', 'configMap', 'secret', 'projected', 'downwardAPI'];
    for (const d of deployments) {
      const pod = at(d.doc, 'spec.template.spec');
      const { container } = containerOf(d);
      expect({
        name: d.name,
        pod: at(pod, 'securityContext'),
        container: at(container, 'securityContext'),
        automountServiceAccountToken: at(pod, 'automountServiceAccountToken'),
        hostAccess: ['hostNetwork', 'hostPID', 'hostIPC'].filter((k) => at(pod, k) === true),
        volumeKinds: mapsAt(pod, 'volumes').flatMap((v) => Object.keys(v).filter((k) => k !== 'name' && !allowedVolumes.includes(k))),
      }).toEqual({
        name: d.name,
        pod: { runAsNonRoot: true, runAsUser: uid, runAsGroup: gid, seccompProfile: { type: 'RuntimeDefault' } },
        container: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        automountServiceAccountToken: false,
        hostAccess: [],
        volumeKinds: [],
      });
    }
  });

  it('give the read-only root filesystem one writable path, /tmp, from a size-limited emptyDir; other mounts are read-only ConfigMaps', () => {
    for (const d of deployments) {
      const { container } = containerOf(d);
      const mounts = mapsAt(container, 'volumeMounts');
      const volumeOf = (m: YamlMap | undefined): YamlMap | undefined => mapsAt(d.doc, 'spec.template.spec.volumes').find((v) => v['name'] === m?.['name']);
      const tmp = mounts.find((m) => m['mountPath'] === '/tmp');
      const volume = volumeOf(tmp);
      const writable = mounts.filter((m) => m['readOnly'] !== true).map((m) => m['mountPath']);
      const others = mounts.filter((m) => m !== tmp).map((m) => ({ at: m['mountPath'], readOnly: m['readOnly'], configMap: isYamlMap(volumeOf(m)?.['configMap']) }));
      expect({ name: d.name, writable, emptyDir: isYamlMap(volume?.['emptyDir']) }).toEqual({ name: d.name, writable: ['/tmp'], emptyDir: true });
      expect({ name: d.name, others: others.filter((o) => o.readOnly !== true || !o.configMap) }).toEqual({ name: d.name, others: [] });
      expect(quantity(at(volume, 'emptyDir.sizeLimit'))).toBeGreaterThan(0);
    }
  });

  it('keep every replicated Deployment, schedulers and supervisors first, available through a drain, one pod at a time', () => {
    const budgets = manifests.filter((m) => m.kind === 'PodDisruptionBudget');
    const replicated = deployments.filter((d) => Number(at(d.doc, 'spec.replicas')) >= 2);
    expect(replicated.map((d) => containerOf(d).service)).toEqual(expect.arrayContaining(['scheduler', 'supervisor']));
    for (const d of deployments) {
      const covering = budgets.filter((b) => isYamlMap(at(b.doc, 'spec.selector.matchLabels')) && selects(at(b.doc, 'spec.selector.matchLabels') as YamlMap, d));
      const wanted = replicated.includes(d) ? 1 : 0;
      expect({ deployment: d.name, budgets: covering.length }).toEqual({ deployment: d.name, budgets: wanted });
      // A budget that allows no eviction would block every node drain; one that allows more loses the standby.
      for (const b of covering) expect({ budget: b.name, maxUnavailable: at(b.doc, 'spec.maxUnavailable'), minAvailable: at(b.doc, 'spec.minAvailable') }).toEqual({ budget: b.name, maxUnavailable: 1, minAvailable: undefined });
    }
    for (const b of budgets) {
      const selector = at(b.doc, 'spec.selector.matchLabels');
      expect({ budget: b.name, selects: deployments.filter((d) => isYamlMap(selector) && selects(selector, d)).length }).toEqual({ budget: b.name, selects: 1 });
    }
  });

  it('take credentials from Secrets that kustomize never applies, and the example Secrets hold only placeholders', () => {
    expect(manifests.filter((m) => m.kind === 'Secret').map((m) => m.name)).toEqual([]);
    const referenced = new Map<string, Set<string>>();
    const note = (secret: string, key: string): void => void referenced.set(secret, new Set([...(referenced.get(secret) ?? []), key]));
    for (const d of deployments) {
      const { container, service } = containerOf(d);
      const refs = mapsAt(container, 'envFrom').filter((s) => at(s, 'secretRef') !== undefined);
      const keyRefs = mapsAt(container, 'env').filter((e) => at(e, 'valueFrom.secretKeyRef') !== undefined);
      for (const key of SECRET_KEYS.filter((k) => declaredEnv(service).has(k) && (k !== 'DASHBOARD_TOKENS' || service === 'dashboard'))) {
        const keyRef = keyRefs.find((e) => e['name'] === key);
        const where = keyRef ? { secret: at(keyRef, 'valueFrom.secretKeyRef.name'), optional: at(keyRef, 'valueFrom.secretKeyRef.optional') } : { secret: at(refs[0], 'secretRef.name'), optional: at(refs[0], 'secretRef.optional') };
        expect({ deployment: d.name, key, ...where }).toEqual({ deployment: d.name, key, secret: expect.any(String), optional: undefined });
        note(String(where.secret), key);
      }
      // The operators' tokens reach the dashboard only.
      if (service !== 'dashboard') expect({ deployment: d.name, readsTokens: keyRefs.some((e) => at(e, 'valueFrom.secretKeyRef.name') === 'sas-dashboard') }).toEqual({ deployment: d.name, readsTokens: false });
      const literal = mapsAt(container, 'env').filter((e) => 'value' in e && SECRET_KEYS.includes(String(e['name'])));
      expect({ deployment: d.name, literalSecrets: literal.map((e) => e['name']) }).toEqual({ deployment: d.name, literalSecrets: [] });
    }
    const examples = new Map(exampleSecrets.map((s) => [s.name, at(s.doc, 'stringData')]));
    expect([...examples.keys()].sort()).toEqual([...referenced.keys()].sort());
    for (const [name, keys] of referenced) {
      const data = examples.get(name);
      expect({ secret: name, keys: isYamlMap(data) ? Object.keys(data).sort() : [] }).toEqual({ secret: name, keys: [...keys].sort() });
      for (const [key, value] of Object.entries(isYamlMap(data) ? data : {})) expect({ secret: name, key, value }).toEqual({ secret: name, key, value: expect.stringContaining('CHANGE-ME') });
    }
  });

  it('select their own pods', () => {
    for (const d of deployments) {
      const selector = at(d.doc, 'spec.selector.matchLabels');
      expect(isYamlMap(selector) && Object.keys(selector).length > 0).toBe(true);
      expect(isYamlMap(selector) && selects(selector, d)).toBe(true);
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

describe('your workflows and mappings in deploy/k8s', () => {
  const filesOf = (key: string): Array<{ deployment: string; path: string; file: MountedFile }> =>
    deployments.flatMap((d) => {
      const { container, env } = containerOf(d);
      const path = env.values.get(key);
      return typeof path === 'string' ? [{ deployment: d.name, path, file: mountedFile(d.doc, container, path, manifests) }] : [];
    });

  it('give submission, scheduler and supervisor one workflows file from a ConfigMap, which every one of them loads', () => {
    const core = deployments.filter((d) => ['submission', 'scheduler', 'supervisor'].includes(containerOf(d).service)).map((d) => d.name).sort();
    const files = filesOf('WORKFLOWS_FILE');
    expect(files.map((f) => f.deployment).sort()).toEqual(core);
    expect(files.filter((f) => 'problem' in f.file).map((f) => `${f.deployment}: ${'problem' in f.file ? f.file.problem : ''}`)).toEqual([]);
    const contents = new Set(files.map((f) => ('content' in f.file ? f.file.content : '')));
    expect(contents.size).toBe(1);
    const registry = loadWorkflows([...contents][0]);
    // The file adds to the built-in workflows: at least one of its own, on agents this deployment runs.
    const own = JSON.parse([...contents][0] ?? '[]') as Array<{ name: string; steps: Array<{ agent: string }> }>;
    expect(own.length).toBeGreaterThan(0);
    for (const w of own) expect(registry.find(w.name)?.name).toBe(w.name);
    const agents = deployments.filter((d) => containerOf(d).service === 'agent').map((d) => String(containerOf(d).env.values.get('AGENT')));
    expect(own.flatMap((w) => w.steps.map((s) => s.agent)).filter((a) => !agents.includes(a))).toEqual([]);
    expect(files.map((f) => ('readOnly' in f.file ? f.file.readOnly : false))).toEqual(files.map(() => true));
  });

  it('give every HTTP agent its mapping from a ConfigMap, a valid one, and the demo agents remote-sim’s own dialect', () => {
    const agents = deployments.filter((d) => containerOf(d).service === 'agent').map((d) => d.name).sort();
    const files = filesOf('AGENT_MAPPING_FILE');
    expect(files.map((f) => f.deployment).sort()).toEqual(agents);
    for (const f of files) {
      if ('problem' in f.file) throw new Error(`${f.deployment}: ${f.file.problem}`);
      const parsed = HttpMapping.safeParse(JSON.parse(f.file.content));
      expect({ deployment: f.deployment, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ deployment: f.deployment, issues: [] });
      // The demo's agents call remote-sim: their file must say exactly what the built-in default says.
      expect({ deployment: f.deployment, mapping: parsed.data }).toEqual({ deployment: f.deployment, mapping: remoteSimMapping });
    }
  });
});

describe('the KEDA ScaledObjects in deploy/k8s/keda', () => {
  const dashboard = deployments.find((d) => containerOf(d).service === 'dashboard');

  it('scale every agent, and only agents, each from its own ScaledObject', () => {
    const targets = scaledObjects.filter((o) => o.kind === 'ScaledObject').map((o) => at(o.doc, 'spec.scaleTargetRef.name'));
    expect([...targets].sort()).toEqual(remoteServiceNames().map((a) => agentDeployment(a)?.name).sort());
  });

  it('read the backlog, waiting + prioritized + delayed requests on the agent’s queue, through Prometheus', () => {
    expect(readText('services/dashboard/src/dashboard-metrics.ts')).toContain("name: 'sas_queue_jobs'");
    for (const o of scaledObjects) {
      const target = deployments.find((d) => d.name === at(o.doc, 'spec.scaleTargetRef.name'));
      const agent = String(target && containerOf(target).env.values.get('AGENT'));
      const triggers = mapsAt(o.doc, 'spec.triggers');
      expect({ object: o.name, types: triggers.map((t) => t['type']) }).toEqual({ object: o.name, types: ['prometheus'] });
      const query = parseQueueDepthQuery(String(at(triggers[0], 'metadata.query')));
      const queueMatchers = query.matchers.filter((m) => m.label === 'queue');
      const states = DEPTH_STATES.filter((s) => query.matchers.filter((m) => m.label === 'state').every((m) => labelMatches(m, s)));
      expect({ object: o.name, metric: query.metric, inner: query.inner, by: query.by, labels: [...new Set(query.matchers.map((m) => m.label))].sort(), queue: queueMatchers.map((m) => `${m.op}${m.value}`), states }).toEqual({
        object: o.name,
        metric: 'sas_queue_jobs',
        // Every dashboard replica exports the same count: max over them, then sum over the states.
        inner: 'max',
        by: ['state'],
        labels: ['queue', 'state'],
        queue: [`=${QueueNames.agentRequests(agent)}`],
        states: ['waiting', 'prioritized', 'delayed'],
      });
      expect(new URL(String(at(triggers[0], 'metadata.serverAddress'))).protocol).toMatch(/^https?:$/);
      expect(String(at(triggers[0], 'metadata.threshold'))).toMatch(/^[1-9]\d*$/);
      // An empty answer (no dashboard, no scrape) is an error that triggers the fallback, not a backlog of 0.
      expect(at(triggers[0], 'metadata.ignoreNullValues')).toBe('false');
    }
  });

  it('find the series they read: the dashboard exports every agent’s queue and Prometheus is told to scrape it', () => {
    const env = dashboard ? containerOf(dashboard).env.values : new Map();
    const agents = String(env.get('AGENTS')).split(',').map((a) => a.trim());
    expect([...agents].sort()).toEqual([...remoteServiceNames()].sort());
    expect(at(dashboard?.doc, 'spec.template.metadata.annotations')).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(env.get('PORT')),
      'prometheus.io/path': '/metrics',
    });
  });

  it('keep two replicas for a node loss, and a fallback between the bounds when the metric cannot be read', () => {
    for (const o of scaledObjects) {
      const min = Number(at(o.doc, 'spec.minReplicaCount'));
      const max = Number(at(o.doc, 'spec.maxReplicaCount'));
      const fallback = Number(at(o.doc, 'spec.fallback.replicas'));
      expect({ object: o.name, min, sane: min >= 2 && max >= min && fallback >= min && fallback <= max }).toEqual({ object: o.name, min: 2, sane: true });
    }
  });
});
