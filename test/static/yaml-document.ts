import {
  parseAllDocuments,
  type DocumentOptions,
  type ParseOptions,
  type ScalarTag,
  type SchemaOptions,
  type ToJSOptions,
} from 'yaml';

/**
 * YAML for the static checks: docker-compose.yml, pnpm-workspace.yaml and the Kubernetes
 * manifests, parsed by the `yaml` package (eemeli/yaml) into plain JSON-like values.
 *
 * Documents are read with the YAML 1.2 core schema plus two things our files meet: `<<` merge keys
 * (docker-compose.yml builds its services from anchors) and YAML 1.1's plain `yes`/`no`/`on`/`off`
 * as booleans, as Kubernetes' parser (go-yaml v2) reads them, so an unquoted `value: yes` shows up
 * as not a string. The whole YAML 1.1 schema is not used: it reads `context: .` as a float and
 * `4100:4100` as a base-60 number, which neither Compose nor Kubernetes does. Any parse error or
 * warning (bad indentation, a duplicate key, an unknown alias or tag) throws an
 * {@link InvalidYamlError} naming the file and line.
 */
export type YamlValue = string | number | boolean | null | YamlValue[] | YamlMap;

/** A YAML mapping; keys keep file order. */
export interface YamlMap {
  [key: string]: YamlValue;
}

/** A file is not valid YAML, or holds something other than mappings, sequences and plain scalars. */
export class InvalidYamlError extends Error {
  constructor(
    message: string,
    /** The file as the caller named it (relative to the repository root). */
    readonly file: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'InvalidYamlError';
  }
}

/** YAML 1.1's other booleans, which Kubernetes still reads as booleans. */
const yaml11Bool: ScalarTag = {
  identify: (value) => typeof value === 'boolean',
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test: /^(?:[Yy]es|YES|[Oo]n|ON|[Nn]o|NO|[Oo]ff|OFF)$/,
  resolve: (text) => /^(?:[Yy]es|YES|[Oo]n|ON)$/.test(text),
};

const OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.2',
  schema: 'core',
  merge: true,
  uniqueKeys: true,
  customTags: [yaml11Bool],
};

/** Guards the aliases of a hostile or broken file from expanding without bound. */
const TO_JS: ToJSOptions = { maxAliasCount: 1000 };

/** Parses every `---`-separated document of `source`; empty (null) documents are dropped, as kubectl drops them. */
export function parseYamlDocuments(source: string, file: string): YamlValue[] {
  const documents = parseAllDocuments(source, OPTIONS);
  return documents.flatMap((doc) => {
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw new InvalidYamlError(problem.message, file);
    let value: unknown;
    try {
      value = doc.toJS(TO_JS);
    } catch (error) {
      // An alias to an anchor that is not set (yet), or too many aliases.
      throw new InvalidYamlError(error instanceof Error ? error.message : String(error), file);
    }
    return value === null || value === undefined ? [] : [toYamlValue(value, file, '')];
  });
}

/** Parses a file that must hold exactly one document. */
export function parseYaml(source: string, file: string): YamlValue {
  const documents = parseYamlDocuments(source, file);
  if (documents.length !== 1)
    throw new InvalidYamlError(`expected one YAML document, found ${documents.length}`, file);
  return documents[0] ?? null;
}

/** True for a mapping (not a sequence, scalar or null). */
export function isYamlMap(value: YamlValue | undefined): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks that `value` is JSON-like (tags such as `!!binary` or `!!set` would yield other objects). */
function toYamlValue(value: unknown, file: string, path: string): YamlValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.map((item: unknown, i) => toYamlValue(item, file, `${path}[${i}]`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const map: YamlMap = {};
    for (const [key, item] of Object.entries(value))
      map[key] = toYamlValue(item, file, path ? `${path}.${key}` : key);
    return map;
  }
  const shown =
    typeof value === 'object'
      ? Object.prototype.toString.call(value).slice(8, -1)
      : `${typeof value} ${String(value)}`;
  throw new InvalidYamlError(
    `${path || 'the document'} is ${shown}, not a mapping, sequence or plain scalar`,
    file,
  );
}
