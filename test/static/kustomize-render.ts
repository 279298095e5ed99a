import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, relative, resolve } from 'node:path';
import { isYamlMap, parseYaml, parseYamlDocuments, type YamlMap, type YamlValue } from './yaml-document';
import type { Manifest } from './k8s-manifests';
import { ROOT } from './workspace-facts';

/**
 * Renders a kustomization as `kustomize build` (and `kubectl apply -k`) would, for the fields our
 * kustomizations use: `resources` (files and directories holding a kustomization), `images`,
 * `namespace` and `configMapGenerator` (from files, without the name hash). No kustomize runs on npm without downloading a Go binary, so this is a small
 * renderer of its own; any other field is refused by name rather than silently left out, so a
 * patch added to deploy/k8s cannot escape the checks that read the rendered output.
 */

/** What `images` may say about one image (kustomize's `Image`). */
interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

/** A kustomization field this renderer does not implement, or a broken kustomization. */
export class KustomizeError extends Error {
  constructor(message: string, readonly file: string) {
    super(`${file}: ${message}`);
    this.name = 'KustomizeError';
  }
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const IMPLEMENTED = new Set(['apiVersion', 'kind', 'resources', 'images', 'namespace', 'configMapGenerator']);

/**
 * Kinds that have no namespace, so `namespace:` leaves them alone. Only the ones a deployment of
 * sas could plausibly hold; an unknown kind is treated as namespaced, as kustomize does for CRs.
 */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ClusterTriggerAuthentication',
]);

/**
 * The objects `kustomize build <dir>` outputs, each with the file it came from relative to the
 * repository root. `dir` is relative to the repository root, like every path of the static checks
 * (or absolute).
 */
export function renderKustomization(dir: string): Manifest[] {
  return render(normalize(dir), []);
}

function render(dir: string, visiting: string[]): Manifest[] {
  if (visiting.includes(dir)) throw new KustomizeError(`resources form a cycle: ${[...visiting, dir].join(' -> ')}`, dir);
  const name = KUSTOMIZATION_FILES.find((f) => existsSync(resolve(ROOT, dir, f)));
  if (name === undefined) throw new KustomizeError(`no kustomization.yaml in this directory`, dir);
  const file = join(dir, name);
  const kustomization = parseYaml(readFileSync(resolve(ROOT, file), 'utf8'), file);
  if (!isYamlMap(kustomization)) throw new KustomizeError('a kustomization must be a mapping', file);
  const unknown = Object.keys(kustomization).filter((k) => !IMPLEMENTED.has(k));
  if (unknown.length > 0)
    throw new KustomizeError(
      `${unknown.map((k) => `'${k}'`).join(', ')} is not rendered by test/static/kustomize-render.ts (it knows ${[...IMPLEMENTED].join(', ')}); teach it that field before using it`,
      file,
    );
  if (kustomization['kind'] !== 'Kustomization' || kustomization['apiVersion'] !== 'kustomize.config.k8s.io/v1beta1')
    throw new KustomizeError(`expected apiVersion kustomize.config.k8s.io/v1beta1 and kind Kustomization`, file);

  const objects = listOf(kustomization, 'resources', file).flatMap((entry) => {
    if (typeof entry !== 'string') throw new KustomizeError(`resources holds ${JSON.stringify(entry)}, not a path`, file);
    if (/^[a-z]+:\/\//i.test(entry) || entry.startsWith('github.com/'))
      throw new KustomizeError(`remote resource '${entry}' is not rendered here; vendor it into the repository`, file);
    const path = normalize(join(dir, entry));
    if (!existsSync(resolve(ROOT, path))) throw new KustomizeError(`resource '${entry}' does not exist (${path})`, file);
    return statSync(resolve(ROOT, path)).isDirectory() ? render(path, [...visiting, dir]) : readResource(path);
  });
  objects.push(...listOf(kustomization, 'configMapGenerator', file).map((entry) => generatedConfigMap(entry, dir, file)));

  const namespace = kustomization['namespace'];
  if (namespace !== undefined && typeof namespace !== 'string') throw new KustomizeError(`namespace must be a string`, file);
  const images = listOf(kustomization, 'images', file).map((entry) => imageOverride(entry, file));
  const rendered = objects.map((m) => {
    let doc = m.doc;
    if (namespace !== undefined && !CLUSTER_SCOPED.has(m.kind)) doc = withNamespace(doc, namespace);
    if (images.length > 0) doc = withImages(doc, images);
    return { ...m, doc };
  });
  assertUniqueIds(rendered, file);
  return rendered;
}

function listOf(map: YamlMap, key: string, file: string): YamlValue[] {
  const value = map[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new KustomizeError(`'${key}' must be a list`, file);
  return value;
}

/** The objects of one resource file; each must say what it is and what it is called. */
function readResource(path: string): Manifest[] {
  return parseYamlDocuments(readFileSync(resolve(ROOT, path), 'utf8'), path).map((doc) => {
    const metadata = isYamlMap(doc) ? doc['metadata'] : undefined;
    const name = isYamlMap(metadata) ? metadata['name'] : undefined;
    if (!isYamlMap(doc) || typeof doc['apiVersion'] !== 'string' || typeof doc['kind'] !== 'string' || typeof name !== 'string')
      throw new KustomizeError('every document must be a mapping with apiVersion, kind and metadata.name', path);
    return { file: relative(join('deploy', 'k8s'), path), kind: doc['kind'], name, doc };
  });
}

const GENERATOR_FIELDS = ['name', 'namespace', 'files', 'options'];
const GENERATOR_OPTIONS = ['disableNameSuffixHash', 'labels'];

/**
 * The ConfigMap a `configMapGenerator` entry makes from files: each file's contents under its base
 * name (or the `key=` it is given). kustomize would append a hash of the contents to the name and
 * rewrite every reference; this renderer does not, so an entry must set
 * `options.disableNameSuffixHash: true`, and fields it does not know are refused by name.
 */
function generatedConfigMap(entry: YamlValue, dir: string, file: string): Manifest {
  if (!isYamlMap(entry) || typeof entry['name'] !== 'string') throw new KustomizeError(`each configMapGenerator entry needs a name; got ${JSON.stringify(entry)}`, file);
  const name = entry['name'];
  const unknown = [...Object.keys(entry).filter((k) => !GENERATOR_FIELDS.includes(k)), ...Object.keys(isYamlMap(entry['options']) ? entry['options'] : {}).filter((k) => !GENERATOR_OPTIONS.includes(k))];
  if (unknown.length > 0) throw new KustomizeError(`configMapGenerator ${name}: ${unknown.join(', ')} is not rendered here; teach test/static/kustomize-render.ts first`, file);
  const options = isYamlMap(entry['options']) ? entry['options'] : {};
  if (options['disableNameSuffixHash'] !== true)
    throw new KustomizeError(`configMapGenerator ${name}: set options.disableNameSuffixHash: true (this renderer computes no name hash, so it could not check the references)`, file);
  const data: Record<string, string> = {};
  for (const f of listOf(entry, 'files', file)) {
    if (typeof f !== 'string') throw new KustomizeError(`configMapGenerator ${name}: files holds ${JSON.stringify(f)}, not a path`, file);
    const [key, source] = f.includes('=') ? [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)] : [f.split('/').pop() ?? f, f];
    const path = normalize(join(dir, source));
    // kustomize's default load restrictor: files must sit inside the kustomization's directory.
    if (relative(dir, path).startsWith('..')) throw new KustomizeError(`configMapGenerator ${name}: ${source} is outside ${dir}, which kustomize refuses`, file);
    if (!existsSync(resolve(ROOT, path))) throw new KustomizeError(`configMapGenerator ${name}: ${source} does not exist (${path})`, file);
    if (key in data) throw new KustomizeError(`configMapGenerator ${name}: key ${key} is given twice`, file);
    data[key] = readFileSync(resolve(ROOT, path), 'utf8');
  }
  const labels = options['labels'];
  const metadata: YamlMap = { name, ...(typeof entry['namespace'] === 'string' ? { namespace: entry['namespace'] } : {}), ...(isYamlMap(labels) ? { labels } : {}) };
  return { file: relative(join('deploy', 'k8s'), file), kind: 'ConfigMap', name, doc: { apiVersion: 'v1', kind: 'ConfigMap', metadata, data } };
}

function imageOverride(entry: YamlValue, file: string): ImageOverride {
  const fields = ['name', 'newName', 'newTag', 'digest'];
  if (!isYamlMap(entry) || typeof entry['name'] !== 'string' || Object.entries(entry).some(([k, v]) => !fields.includes(k) || typeof v !== 'string'))
    throw new KustomizeError(`each images entry needs a name and may set newName, newTag or digest, all strings; got ${JSON.stringify(entry)}`, file);
  if (entry['newTag'] !== undefined && entry['digest'] !== undefined)
    throw new KustomizeError(`images entry '${entry['name']}' sets both newTag and digest; keep one`, file);
  return entry as unknown as ImageOverride;
}

function withNamespace(doc: YamlMap, namespace: string): YamlMap {
  const metadata = isYamlMap(doc['metadata']) ? doc['metadata'] : {};
  return { ...doc, metadata: { ...metadata, namespace } };
}

/** An image reference split as kustomize splits it: the tag follows the last `:` after the last `/`. */
export function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(':');
  const tagged = colon > rest.lastIndexOf('/');
  return {
    name: tagged ? rest.slice(0, colon) : rest,
    ...(tagged ? { tag: rest.slice(colon + 1) } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}

function retag(image: string, overrides: readonly ImageOverride[]): string {
  const parts = splitImage(image);
  const override = overrides.find((o) => o.name === parts.name);
  if (!override) return image;
  const name = override.newName ?? parts.name;
  if (override.digest !== undefined) return `${name}@${override.digest}`;
  if (override.newTag !== undefined) return `${name}:${override.newTag}`;
  return `${name}${parts.tag !== undefined ? `:${parts.tag}` : ''}${parts.digest !== undefined ? `@${parts.digest}` : ''}`;
}

/** Every `image` of a `containers` or `initContainers` list anywhere in the object, retagged. */
function withImages(value: YamlMap, overrides: readonly ImageOverride[]): YamlMap {
  const visit = (v: YamlValue, inContainers: boolean): YamlValue => {
    if (Array.isArray(v)) return v.map((item) => visit(item, inContainers));
    if (!isYamlMap(v)) return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, inner]) => {
        if (inContainers && k === 'image' && typeof inner === 'string') return [k, retag(inner, overrides)];
        return [k, visit(inner, k === 'containers' || k === 'initContainers')];
      }),
    );
  };
  return visit(value, false) as YamlMap;
}

/** kustomize refuses two objects with the same group, kind, namespace and name. */
function assertUniqueIds(objects: readonly Manifest[], file: string): void {
  const seen = new Map<string, string>();
  for (const m of objects) {
    const group = String(m.doc['apiVersion']).split('/').slice(0, -1).join('/');
    const ns = isYamlMap(m.doc['metadata']) ? String(m.doc['metadata']['namespace'] ?? '') : '';
    const id = `${group}/${m.kind}/${ns}/${m.name}`;
    const first = seen.get(id);
    if (first !== undefined) throw new KustomizeError(`${m.kind} ${m.name} is defined twice (${first} and ${m.file}); kustomize refuses a duplicate id`, file);
    seen.set(id, m.file);
  }
}
