import { join } from 'node:path';
import * as ts from 'typescript';
import { isYamlMap, type YamlValue } from './yaml-document';
import type { Manifest } from './k8s-manifests';
import { ROOT } from './workspace-facts';

/**
 * Validation of manifests against the Kubernetes API schemas (and KEDA's CRD schema), as the API
 * server does on `kubectl apply`:
 *
 * - types, required fields, enums and formats (quantities, int-or-string), with the ajv
 *   validators the `kubernetes-models` packages generate from the OpenAPI specification;
 * - unknown fields, which kubectl's strict field validation refuses (`readinesProbe` is an error,
 *   not an ignored key). The generated validators allow extra properties, so these are found by
 *   walking each object alongside the TypeScript declarations the same packages generate from the
 *   same specification.
 *
 * kubernetes-models 4.x is used because 5.x is ESM-only and needs Node 22; both cover the same API.
 */

/** Where the models of a CRD group come from; core groups come from `kubernetes-models`. */
const CRD_PACKAGES: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda/keda.sh' };

/** The module that declares `apiVersion`/`kind`, e.g. `kubernetes-models/apps/v1/Deployment`. */
export function modelModule(apiVersion: string, kind: string): string {
  const slash = apiVersion.lastIndexOf('/');
  if (slash < 0) return `kubernetes-models/${apiVersion}/${kind}`;
  const group = apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  return `${CRD_PACKAGES[group] ?? `kubernetes-models/${group}`}/${version}/${kind}`;
}

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** Every problem the API server would report for these objects; empty when all are valid. */
export function schemaProblems(manifests: readonly Manifest[]): string[] {
  const declared = declaredTypes(manifests);
  return manifests.flatMap((m) => {
    const where = `${m.file}: ${m.kind} ${m.name}`;
    const apiVersion = String(m.doc['apiVersion']);
    const module = modelModule(apiVersion, m.kind);
    let Model: ModelClass | undefined;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is chosen by the object's kind
      Model = (require(module) as Record<string, ModelClass | undefined>)[m.kind];
    } catch {
      Model = undefined;
    }
    if (Model === undefined) return [`${where}: no schema for ${apiVersion} ${m.kind} (${module}); add the models package of its API group to CRD_PACKAGES`];
    const problems: string[] = [];
    try {
      new Model(m.doc).validate();
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const type = declared.get(module);
    if (type) unknownFields(m.doc, type.type, type.checker, '', problems);
    return problems.map((p) => (p.startsWith(where) ? p : `${where}: ${p}`));
  });
}

/** Programs already built, by the modules they declare: building one takes seconds. */
const programs = new Map<string, Map<string, DeclaredType>>();

interface DeclaredType {
  type: ts.Type;
  checker: ts.TypeChecker;
}

/**
 * The `I<Kind>` interface of each object's model, from one TypeScript program over the packages'
 * declarations (only ES5's lib is loaded: the declarations need no more, and it keeps this to a
 * few seconds).
 */
function declaredTypes(manifests: readonly Manifest[]): Map<string, DeclaredType> {
  const modules = [...new Set(manifests.map((m) => `${modelModule(String(m.doc['apiVersion']), m.kind)}#${m.kind}`))].sort();
  const key = modules.join(',');
  const known = programs.get(key);
  if (known) return known;
  const file = join(ROOT, 'test', 'static', '__k8s-declared-types__.ts');
  const source = modules.map((entry, i) => {
    const [module, kind] = entry.split('#');
    return `export type T${i} = import(${JSON.stringify(module)}).I${kind};`;
  });
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es5.d.ts'],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const readSource = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source.join('\n'), language) : readSource(name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const sourceFile = program.getSourceFile(file);
  const aliases = sourceFile?.statements.filter(ts.isTypeAliasDeclaration) ?? [];
  const types = new Map<string, DeclaredType>();
  modules.forEach((entry, i) => {
    const alias = aliases[i];
    const type = alias && checker.getTypeAtLocation(alias.name);
    // A module or interface that does not resolve gives `any`, which would accept any field: that
    // must fail loudly. (A missing model package is reported per object by schemaProblems.)
    if (!type || type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    types.set(entry.split('#')[0] ?? '', { type, checker });
  });
  const unresolved = modules.filter((entry) => !types.has(entry.split('#')[0] ?? '') && canRequire(entry.split('#')[0] ?? ''));
  if (unresolved.length > 0) throw new Error(`the declarations of ${unresolved.join(', ')} do not resolve to an interface; unknown fields could not be checked`);
  programs.set(key, types);
  return types;
}

function canRequire(module: string): boolean {
  try {
    require.resolve(module);
    return true;
  } catch {
    return false;
  }
}

/** Adds to `problems` every key of `value` (at any depth) that `type` does not declare. */
function unknownFields(value: YamlValue, type: ts.Type, checker: ts.TypeChecker, path: string, problems: string[]): void {
  const candidates = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  if (candidates.some((t) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) return;
  if (Array.isArray(value)) {
    const arrayType = candidates.find((t) => checker.isArrayType(t));
    const element = arrayType && checker.getTypeArguments(arrayType as ts.TypeReference)[0];
    if (element) value.forEach((item, i) => unknownFields(item, element, checker, `${path}[${i}]`, problems));
    return;
  }
  if (!isYamlMap(value)) return;
  const objects = candidates.filter((t) => t.flags & ts.TypeFlags.Object && !checker.isArrayType(t));
  if (objects.length === 0) return; // a type mismatch, which the schema validation reports
  for (const [key, inner] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const owner = objects.find((t) => checker.getPropertyOfType(t, key) !== undefined);
    const property = owner && checker.getPropertyOfType(owner, key);
    if (property) {
      unknownFields(inner, checker.getTypeOfSymbol(property), checker, at, problems);
      continue;
    }
    const index = objects.map((t) => checker.getIndexTypeOfType(t, ts.IndexKind.String)).find((t) => t !== undefined);
    if (index) unknownFields(inner, index, checker, at, problems);
    else problems.push(`${at}: unknown field '${key}' (${typeName(objects[0])} has ${describeKeys(objects, checker)})`);
  }
}

function typeName(type: ts.Type | undefined): string {
  const name = type?.aliasSymbol?.name ?? type?.getSymbol()?.name;
  return name && name !== '__type' ? name : 'the object';
}

function describeKeys(objects: readonly ts.Type[], checker: ts.TypeChecker): string {
  const names = [...new Set(objects.flatMap((t) => checker.getPropertiesOfType(t).map((p) => p.name)))];
  return names.length > 12 ? `${names.slice(0, 12).join(', ')}, …` : names.join(', ');
}
