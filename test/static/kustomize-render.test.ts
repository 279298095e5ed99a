import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at, mapsAt, manifestFiles, readManifests } from './k8s-manifests';
import { KustomizeError, renderKustomization, splitImage } from './kustomize-render';
import { readYaml } from './workspace-facts';

/** The small kustomize renderer the static checks read deploy/k8s through. */

let scratch = '';

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sas-kustomize-'));
});

afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function write(path: string, text: string): void {
  mkdirSync(join(scratch, path, '..'), { recursive: true });
  writeFileSync(join(scratch, path), text);
}

const KUSTOMIZATION = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';

function deployment(name: string, image: string): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: { name: ${name} }`,
    'spec:',
    '  template:',
    '    spec:',
    `      initContainers: [{ name: init, image: "${image}" }]`,
    `      containers: [{ name: main, image: "${image}", env: [{ name: image, value: "${image}" }] }]`,
  ].join('\n');
}

describe('renderKustomization', () => {
  it('gathers resources from files and nested kustomizations, in the order listed', () => {
    write('kustomization.yaml', `${KUSTOMIZATION}resources: [ns.yaml, sub]\n`);
    write('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop }\n');
    write('sub/kustomization.yaml', `${KUSTOMIZATION}resources: [two.yaml]\n`);
    write('sub/two.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: b }\n');
    expect(renderKustomization(scratch).map((m) => `${m.kind}/${m.name}`)).toEqual(['Namespace/shop', 'ConfigMap/a', 'ConfigMap/b']);
  });

  it('retags the images of containers and init containers, and nothing else that says image', () => {
    write(
      'kustomization.yaml',
      `${KUSTOMIZATION}resources: [d.yaml]\nimages:\n  - { name: sas, newTag: "1.2.3" }\n  - { name: registry.local:5000/tool, newName: other/tool, digest: "sha256:abc" }\n`,
    );
    write('d.yaml', `${deployment('one', 'sas')}\n---\n${deployment('two', 'registry.local:5000/tool:9')}\n---\n${deployment('three', 'sasx:1')}\n`);
    const images = renderKustomization(scratch).map((m) => [
      String(at(mapsAt(m.doc, 'spec.template.spec.containers')[0], 'image')),
      String(at(mapsAt(m.doc, 'spec.template.spec.initContainers')[0], 'image')),
      String(mapsAt(mapsAt(m.doc, 'spec.template.spec.containers')[0], 'env')[0]?.['value']),
    ]);
    expect(images).toEqual([
      ['sas:1.2.3', 'sas:1.2.3', 'sas'],
      ['other/tool@sha256:abc', 'other/tool@sha256:abc', 'registry.local:5000/tool:9'],
      ['sasx:1', 'sasx:1', 'sasx:1'],
    ]);
  });

  it('puts namespaced objects in the namespace it names and leaves cluster-scoped ones alone', () => {
    write('kustomization.yaml', `${KUSTOMIZATION}namespace: shop\nresources: [all.yaml]\n`);
    write('all.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: a, namespace: elsewhere }\n');
    expect(renderKustomization(scratch).map((m) => at(m.doc, 'metadata.namespace') ?? null)).toEqual([null, 'shop']);
  });

  it('generates a ConfigMap from files, keyed by base name or the key given, and refuses what it cannot render', () => {
    write('kustomization.yaml', `${KUSTOMIZATION}namespace: shop\nconfigMapGenerator:\n  - name: wf\n    files: [config/workflows.json, m.json=other.json]\n    options: { disableNameSuffixHash: true, labels: { team: a } }\n`);
    write('config/workflows.json', '[]\n');
    write('other.json', '{"operations":{}}');
    expect(renderKustomization(scratch).map((m) => m.doc)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wf', namespace: 'shop', labels: { team: 'a' } }, data: { 'workflows.json': '[]\n', 'm.json': '{"operations":{}}' } },
    ]);
    write('kustomization.yaml', `${KUSTOMIZATION}configMapGenerator:\n  - name: wf\n    files: [config/workflows.json]\n`);
    expect(() => renderKustomization(scratch)).toThrow(/configMapGenerator wf: set options\.disableNameSuffixHash: true/);
    write('kustomization.yaml', `${KUSTOMIZATION}configMapGenerator:\n  - name: wf\n    literals: [a=b]\n    options: { disableNameSuffixHash: true }\n`);
    expect(() => renderKustomization(scratch)).toThrow(/configMapGenerator wf: literals is not rendered here/);
    write('kustomization.yaml', `${KUSTOMIZATION}configMapGenerator:\n  - name: wf\n    files: [../outside.json]\n    options: { disableNameSuffixHash: true }\n`);
    expect(() => renderKustomization(scratch)).toThrow(/outside\.json is outside .*which kustomize refuses/);
    write('kustomization.yaml', `${KUSTOMIZATION}configMapGenerator:\n  - name: wf\n    files: [gone.json]\n    options: { disableNameSuffixHash: true }\n`);
    expect(() => renderKustomization(scratch)).toThrow(/configMapGenerator wf: gone\.json does not exist/);
  });

  it('refuses a field it does not render, naming it, rather than leave it out', () => {
    write('kustomization.yaml', `${KUSTOMIZATION}resources: []\npatches:\n  - path: p.yaml\n`);
    expect(() => renderKustomization(scratch)).toThrow(KustomizeError);
    expect(() => renderKustomization(scratch)).toThrow(/kustomization\.yaml: 'patches' is not rendered by test\/static\/kustomize-render\.ts .*teach it that field before using it/);
  });

  it('refuses a missing resource, a remote one, a duplicate object, a document without a name and a cycle', () => {
    write('kustomization.yaml', `${KUSTOMIZATION}resources: [gone.yaml]\n`);
    expect(() => renderKustomization(scratch)).toThrow(/resource 'gone\.yaml' does not exist/);
    write('kustomization.yaml', `${KUSTOMIZATION}resources: ["https://example.com/x.yaml"]\n`);
    expect(() => renderKustomization(scratch)).toThrow(/remote resource 'https:\/\/example\.com\/x\.yaml' is not rendered here/);
    write('kustomization.yaml', `${KUSTOMIZATION}resources: [a.yaml, b.yaml]\n`);
    write('a.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n');
    write('b.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n');
    expect(() => renderKustomization(scratch)).toThrow(/ConfigMap a is defined twice \(.*a\.yaml and .*b\.yaml\)/);
    write('b.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n');
    expect(() => renderKustomization(scratch)).toThrow(/b\.yaml: every document must be a mapping with apiVersion, kind and metadata\.name/);
    write('kustomization.yaml', `${KUSTOMIZATION}resources: [loop]\n`);
    write('loop/kustomization.yaml', `${KUSTOMIZATION}resources: [..]\n`);
    expect(() => renderKustomization(scratch)).toThrow(/resources form a cycle: .* -> .*loop -> /);
  });

  it('splits image references as kustomize does', () => {
    expect(splitImage('sas')).toEqual({ name: 'sas' });
    expect(splitImage('sas:0.1.0')).toEqual({ name: 'sas', tag: '0.1.0' });
    expect(splitImage('host:5000/team/sas')).toEqual({ name: 'host:5000/team/sas' });
    expect(splitImage('host:5000/sas:1@sha256:ff')).toEqual({ name: 'host:5000/sas', tag: '1', digest: 'sha256:ff' });
  });
});

describe('deploy/k8s rendered', () => {
  const rendered = renderKustomization('deploy/k8s');

  it('holds every object of every listed file once, each Deployment on the image tag kustomization.yaml sets', () => {
    const listed = at(readYaml('deploy/k8s/kustomization.yaml'), 'resources');
    const files = Array.isArray(listed) ? listed.map(String) : [];
    const generators = at(readYaml('deploy/k8s/kustomization.yaml'), 'configMapGenerator');
    const generated = Array.isArray(generators) ? generators.map((g) => `ConfigMap/${String(at(g, 'name'))}`) : [];
    expect(rendered.filter((m) => m.file === 'kustomization.yaml').map((m) => `${m.kind}/${m.name}`)).toEqual(generated);
    expect(rendered.length).toBe(readManifests().filter((m) => files.includes(m.file)).length + generated.length);
    const images = at(readYaml('deploy/k8s/kustomization.yaml'), 'images');
    expect(images).toEqual([{ name: 'sas', newTag: expect.stringMatching(/^\d+\.\d+\.\d+$/) }]);
    const tag = Array.isArray(images) ? String(at(images[0], 'newTag')) : '';
    const used = rendered.filter((m) => m.kind === 'Deployment').flatMap((m) => mapsAt(m.doc, 'spec.template.spec.containers').map((c) => c['image']));
    expect(new Set(used)).toEqual(new Set([`sas:${tag}`]));
  });

  it('lists every manifest file but the example Secrets, and keda/ renders on its own', () => {
    const listed = at(readYaml('deploy/k8s/kustomization.yaml'), 'resources');
    expect(Array.isArray(listed) ? [...listed].sort() : listed).toEqual(manifestFiles().filter((f) => f !== 'kustomization.yaml' && f !== 'secret.example.yaml'));
    const keda = renderKustomization('deploy/k8s/keda');
    expect(keda.map((m) => m.file).sort()).toEqual(manifestFiles('keda').filter((f) => f !== 'kustomization.yaml').map((f) => `keda/${f}`));
  });
});
