import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isYamlMap, parseYamlDocuments, type YamlMap, type YamlValue } from './yaml-document';
import { ROOT, readText } from './workspace-facts';

/**
 * The Kubernetes manifests under deploy/k8s, read as plain objects, with the few look-ups the
 * static checks need (effective environment of a container, named ports).
 */

/** A manifest with the file it came from. */
export interface Manifest {
  file: string;
  kind: string;
  name: string;
  doc: YamlMap;
}

/** Every document of every `*.yaml` directly in `deploy/k8s/<sub>`. */
export function readManifests(sub = ''): Manifest[] {
  const dir = join('deploy', 'k8s', sub);
  return manifestFiles(sub).flatMap((file) =>
    parseYamlDocuments(readText(join(dir, file)), join(dir, file)).map((doc) => {
      if (!isYamlMap(doc)) throw new Error(`${dir}/${file}: a document is not a mapping`);
      const metadata = doc['metadata'];
      return { file, kind: String(doc['kind']), name: String(isYamlMap(metadata) ? metadata['name'] : ''), doc };
    }),
  );
}

/** The `*.yaml` file names directly in `deploy/k8s/<sub>`. */
export function manifestFiles(sub = ''): string[] {
  return readdirSync(join(ROOT, 'deploy', 'k8s', sub))
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

/** `value` at a dotted path of mapping keys, or undefined when any step is missing. */
export function at(value: YamlValue | undefined, path: string): YamlValue | undefined {
  return path.split('.').reduce<YamlValue | undefined>((v, key) => (isYamlMap(v) ? v[key] : undefined), value);
}

/** The mappings of a sequence at `path` (non-mappings dropped). */
export function mapsAt(value: YamlValue | undefined, path: string): YamlMap[] {
  const list = at(value, path);
  return Array.isArray(list) ? list.filter(isYamlMap) : [];
}

/**
 * The environment a container gets: `envFrom` ConfigMaps first, then `env` entries with a literal
 * `value` (they win, as in Kubernetes). Secret refs and `valueFrom` are returned in `external`,
 * because their values are not in the manifests.
 */
export function effectiveEnv(container: YamlMap, manifests: Manifest[]): { values: Map<string, YamlValue>; external: string[] } {
  const values = new Map<string, YamlValue>();
  const external: string[] = [];
  for (const source of mapsAt(container, 'envFrom')) {
    const configMap = at(source, 'configMapRef.name');
    if (configMap !== undefined) {
      const found = manifests.find((m) => m.kind === 'ConfigMap' && m.name === configMap);
      if (!found) throw new Error(`envFrom names ConfigMap '${String(configMap)}', which no manifest defines`);
      const data = at(found.doc, 'data');
      if (isYamlMap(data)) Object.entries(data).forEach(([k, v]) => values.set(k, v));
    } else if (at(source, 'secretRef.name') !== undefined) {
      external.push(`secret ${String(at(source, 'secretRef.name'))}`);
    }
  }
  for (const entry of mapsAt(container, 'env')) {
    const name = String(entry['name']);
    if ('value' in entry) values.set(name, entry['value'] ?? null);
    else external.push(name);
  }
  return { values, external };
}

/** The port number an `httpGet` probe uses, resolving a named port through the container's ports. */
export function probePort(container: YamlMap, probe: string): number | undefined {
  const port = at(container, `${probe}.httpGet.port`);
  if (typeof port === 'number') return port;
  const named = mapsAt(container, 'ports').find((p) => p['name'] === port);
  return typeof named?.['containerPort'] === 'number' ? named['containerPort'] : undefined;
}

/** The environment a container starts with, as the kubelet builds it, or what it could not resolve. */
export interface PodEnvironment {
  env: Record<string, string>;
  /** References to ConfigMaps, Secrets, keys or fields that the given manifests do not hold. */
  unresolved: string[];
}

/**
 * The environment `container` gets in a pod named `podName`: `envFrom` sources in order, then
 * `env` entries (which win), with ConfigMaps and Secrets looked up in `manifests` (a Secret's
 * `stringData` or base64 `data`) and `fieldRef: metadata.name` as the pod name. A reference
 * marked optional that does not resolve is skipped, as Kubernetes does.
 */
export function podEnvironment(container: YamlMap, manifests: readonly Manifest[], podName: string): PodEnvironment {
  const env: Record<string, string> = {};
  const unresolved: string[] = [];
  const dataOf = (kind: 'ConfigMap' | 'Secret', name: YamlValue | undefined): Record<string, string> | undefined => {
    const found = manifests.find((m) => m.kind === kind && m.name === name);
    if (!found) return undefined;
    const plain = at(found.doc, kind === 'ConfigMap' ? 'data' : 'stringData');
    const encoded = kind === 'Secret' ? at(found.doc, 'data') : undefined;
    return {
      ...(isYamlMap(encoded) ? Object.fromEntries(Object.entries(encoded).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString('utf8')])) : {}),
      ...(isYamlMap(plain) ? Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, String(v)])) : {}),
    };
  };
  for (const source of mapsAt(container, 'envFrom')) {
    const kind = at(source, 'configMapRef') !== undefined ? 'ConfigMap' : 'Secret';
    const ref = at(source, kind === 'ConfigMap' ? 'configMapRef' : 'secretRef');
    const data = dataOf(kind, at(ref, 'name'));
    if (data) Object.assign(env, data);
    else if (at(ref, 'optional') !== true) unresolved.push(`${kind} ${String(at(ref, 'name'))}`);
  }
  for (const entry of mapsAt(container, 'env')) {
    const name = String(entry['name']);
    if ('value' in entry) {
      env[name] = String(entry['value']);
      continue;
    }
    const field = at(entry, 'valueFrom.fieldRef.fieldPath');
    const keyRef = at(entry, 'valueFrom.secretKeyRef') ?? at(entry, 'valueFrom.configMapKeyRef');
    const kind = at(entry, 'valueFrom.secretKeyRef') !== undefined ? 'Secret' : 'ConfigMap';
    if (field === 'metadata.name') env[name] = podName;
    else if (keyRef !== undefined) {
      const value = dataOf(kind, at(keyRef, 'name'))?.[String(at(keyRef, 'key'))];
      if (value !== undefined) env[name] = value;
      else if (at(keyRef, 'optional') !== true) unresolved.push(`${name}: key ${String(at(keyRef, 'key'))} of ${kind} ${String(at(keyRef, 'name'))}`);
    } else unresolved.push(`${name}: ${JSON.stringify(entry['valueFrom'])}`);
  }
  return { env, unresolved };
}

/** A Kubernetes quantity (`100m`, `384Mi`, `1`, `1.5G`) as a number of base units. */
export function quantity(value: YamlValue | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(value));
  if (!match) throw new Error(`'${String(value)}' is not a quantity this check reads (e.g. 100m, 384Mi, 1)`);
  const scale: Record<string, number> = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
  return Number(match[1]) * (match[2] ? (scale[match[2]] ?? 1) : 1);
}

/** What a container reads at a file path: the ConfigMap key mounted there, or why nothing is. */
export type MountedFile = { configMap: string; key: string; readOnly: boolean; content: string } | { problem: string };

/**
 * The file `path` as `container` of the Deployment `deployment` sees it, when it comes from a
 * `configMap` volume (mounted as a directory, keys as file names, or one key by `subPath`), with its
 * contents from the rendered ConfigMap in `manifests`.
 */
export function mountedFile(deployment: YamlMap, container: YamlMap, path: string, manifests: readonly Manifest[]): MountedFile {
  const mount = mapsAt(container, 'volumeMounts').find((m) => {
    const where = String(m['mountPath']);
    return m['subPath'] !== undefined ? where === path : path.startsWith(`${where.replace(/\/$/, '')}/`);
  });
  if (!mount) return { problem: `no volume is mounted at ${path}` };
  const volume = mapsAt(deployment, 'spec.template.spec.volumes').find((v) => v['name'] === mount['name']);
  const configMap = at(volume, 'configMap.name');
  if (typeof configMap !== 'string') return { problem: `${path} is on volume ${String(mount['name'])}, which is not a ConfigMap` };
  const found = manifests.find((m) => m.kind === 'ConfigMap' && m.name === configMap);
  if (!found) return { problem: `${path} comes from ConfigMap ${configMap}, which the kustomization does not render` };
  const key = mount['subPath'] !== undefined ? String(mount['subPath']) : path.slice(String(mount['mountPath']).replace(/\/$/, '').length + 1);
  const data = at(found.doc, 'data');
  const content = isYamlMap(data) ? data[key] : undefined;
  if (typeof content !== 'string') return { problem: `ConfigMap ${configMap} has no key ${key} for ${path}` };
  return { configMap, key, readOnly: mount['readOnly'] === true, content };
}
