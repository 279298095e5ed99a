import { readFileSync } from 'node:fs';
import type { AgentDefinition, OperationHandler } from '@sas/agent';
import { describeIssues } from '@sas/contracts';
import { ConfigError, type Clock } from '@sas/runtime';
import { HttpMapping, LookupMapping, isReferenceIssue } from './http-mapping';
import { createHttpRemoteCall } from './http-remote-call';
import type { HttpFetch } from './keep-alive-fetch';
import { VALID_REFERENCES, referenceProblem, referencesAt, referencesIn, stringsAt, templateSyntaxProblem } from './template';
import { urlTemplateProblem } from './url-template';

/**
 * Reads and validates a mapping file. Every problem names the file and the field: a template
 * that does not parse (a stray brace), and a URL that is not an http(s) URL once the variables of
 * `env` that it reads are filled in (one that reads an unset variable is checked by `httpAgent`).
 *
 * @throws ConfigError when the file cannot be read, is not JSON, or does not match {@link HttpMapping}.
 */
export function readMappingFile(path: string, env: Readonly<Record<string, string | undefined>> = process.env): HttpMapping {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const message = `AGENT_MAPPING_FILE '${path}' cannot be read (${(e as Error).message}); set it to a JSON mapping file or unset it to call remote-sim`;
    throw new ConfigError(message, [message]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const message = `AGENT_MAPPING_FILE '${path}' is not JSON: ${(e as Error).message}`;
    throw new ConfigError(message, [message]);
  }
  const parsed = HttpMapping.safeParse(json);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    const valid = parsed.error.issues.some(isReferenceIssue) ? `\nThe references a template may hold: ${VALID_REFERENCES}` : '';
    throw new ConfigError(`AGENT_MAPPING_FILE '${path}' is not a valid mapping:\n  ${issues.join('\n  ')}${valid}`, issues);
  }
  const badUrls = urlProblems(parsed.data, env);
  if (badUrls.length) throw new ConfigError(`AGENT_MAPPING_FILE '${path}' has URLs that cannot be called:\n  ${badUrls.join('\n  ')}`, badUrls);
  return parsed.data;
}

/** Every url and lookup.url of `mapping` that cannot be called, by operation and field. */
function urlProblems(mapping: HttpMapping, env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(mapping.operations).flatMap(([operation, m]) =>
    [
      ['url', m.url],
      ['lookup.url', m.lookup?.url],
      ['forwardLookup.url', m.forwardLookup?.url],
    ].flatMap(([field, template]) => {
      const problem = template === undefined ? null : urlTemplateProblem(template, env);
      return problem ? [`operations.${operation}.${field}: ${problem}`] : [];
    }),
  );
}

/** Options of {@link httpAgent}. */
export interface HttpAgentOptions {
  /** The environment `{env.X}` references read; each one used must be set. */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
  clock?: Clock;
  /** @default globalThis.fetch */
  fetch?: HttpFetch;
}

/**
 * The agent `name` whose operations are HTTP calls as `mapping` says; `*` handles every operation
 * not listed.
 *
 * @throws ConfigError naming the operation and field of every template that does not parse (a
 *   stray brace), every URL that is not an http(s) URL once `{env.X}` is filled in, every
 *   reference that can never resolve (`{compensates.foo.id}`), and every `{env.X}` reference whose
 *   variable is not set.
 */
export function httpAgent(
  name: string,
  mapping: HttpMapping,
  options: HttpAgentOptions,
): AgentDefinition & { operations: Record<string, OperationHandler<unknown>> } {
  const env: Record<string, string> = {};
  const missing: string[] = [];
  const invalid: string[] = [];
  const badLookups: string[] = [];
  // A mapping built in code has not been through HttpMapping's parse: its templates are checked here.
  const unparsed: string[] = urlProblems(mapping, options.env);
  for (const [operation, m] of Object.entries(mapping.operations)) {
    const lookup = m.lookup;
    const forward = m.forwardLookup;
    const fields = {
      url: m.url,
      body: m.body,
      ...Object.fromEntries(Object.entries(m.headers).map(([h, t]) => [`headers.${h}`, t])),
      // The lookup's templates are filled from the same call, so they are held to the same checks.
      ...(lookup && { 'lookup.url': lookup.url, 'lookup.body': lookup.body, 'lookup.key': lookup.key }),
      ...(lookup && Object.fromEntries(Object.entries(lookup.headers).map(([h, t]) => [`lookup.headers.${h}`, t]))),
      ...(forward && { 'forwardLookup.url': forward.url, 'forwardLookup.body': forward.body, 'forwardLookup.key': forward.key }),
      ...(forward && Object.fromEntries(Object.entries(forward.headers).map(([h, t]) => [`forwardLookup.headers.${h}`, t]))),
    };
    for (const [field, question] of [['lookup', lookup], ['forwardLookup', forward]] as const) {
      if (!question) continue;
      // A mapping built in code has not been through HttpMapping's parse: a "not found" status that
      // could be a failure would turn a lost lookup into a second effect (or an undo not done).
      const parsed = LookupMapping.safeParse(question);
      // References are reported below with the operation's own, so they are left out here.
      const issues = parsed.success ? [] : parsed.error.issues.filter((i) => !isReferenceIssue(i));
      badLookups.push(...issues.map((i) => `operations.${operation}.${field}.${i.path.join('.')}: ${i.message}`));
    }
    for (const [field, template] of Object.entries(fields)) {
      for (const { text, at } of stringsAt(template)) {
        const problem = templateSyntaxProblem(text);
        if (problem) unparsed.push(`operations.${operation}.${[field, ...at].join('.')}: ${problem}`);
      }
      // A mapping built in code has not been through HttpMapping's parse: check it here too.
      for (const { reference, at } of referencesAt(template)) {
        const problem = referenceProblem(reference);
        if (problem) invalid.push(`operations.${operation}.${[field, ...at].join('.')}: ${problem}`);
      }
      for (const reference of referencesIn(template).filter((r) => r.startsWith('env.') && referenceProblem(r) === null)) {
        const variable = reference.slice('env.'.length);
        const value = options.env[variable];
        if (value === undefined) missing.push(`operations.${operation}.${field}: {${reference}} needs ${variable}, which is not set`);
        else env[variable] = value;
      }
    }
  }
  if (unparsed.length) throw new ConfigError(`The HTTP mapping of agent '${name}' has templates that cannot be filled:\n  ${unparsed.join('\n  ')}`, unparsed);
  if (badLookups.length) throw new ConfigError(`The HTTP mapping of agent '${name}' has lookups that are not valid:\n  ${badLookups.join('\n  ')}`, badLookups);
  if (invalid.length) {
    throw new ConfigError(`The HTTP mapping of agent '${name}' has references that can never resolve:\n  ${invalid.join('\n  ')}\nThe references a template may hold: ${VALID_REFERENCES}`, invalid);
  }
  if (missing.length) throw new ConfigError(`The HTTP mapping of agent '${name}' reads unset variables:\n  ${missing.join('\n  ')}`, missing);
  const handlerOf = (operation: string): OperationHandler<unknown> | undefined => {
    const m = mapping.operations[operation];
    return m && createHttpRemoteCall(m, { env, timeoutMs: options.timeoutMs, clock: options.clock, fetch: options.fetch });
  };
  const operations = Object.fromEntries(
    Object.keys(mapping.operations)
      .filter((op) => op !== '*')
      .map((op) => [op, handlerOf(op)]),
  ) as Record<string, OperationHandler<unknown>>;
  const other = handlerOf('*');
  return { name, operations, ...(other && { otherOperations: other }) };
}
