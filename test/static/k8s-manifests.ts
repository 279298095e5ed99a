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
