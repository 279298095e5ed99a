import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpAgent, readMappingFile } from './http-agent';
import { HttpMapping } from './http-mapping';

const write = (mapping: unknown): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'lookup-mapping-')), 'mapping.json');
  writeFileSync(path, JSON.stringify(mapping));
  return path;
};
const book = (lookup: Record<string, unknown>): unknown => ({ operations: { book: { url: 'http://flights.test/flights', lookup } } });

describe('an operation\'s lookup in a mapping file', () => {
  it('fills the defaults: GET, no body, 404 is "not found", the key is the idempotency key', () => {
    const mapping = readMappingFile(write(book({ url: 'http://flights.test/flights?ref={idempotencyKey}' })));
    expect(mapping.operations['book']?.lookup).toEqual({
      method: 'GET',
      url: 'http://flights.test/flights?ref={idempotencyKey}',
      headers: {},
      body: null,
      notFoundStatuses: [404],
      key: '{idempotencyKey}',
    });
  });

  it('refuses, by path, a "not found" status that could be a failure or an answer, a GET with a body, a bad reference and an unknown field', () => {
    const path = write(
      book({ url: 'http://flights.test/flights?ref={idempotency}', notFoundStatuses: [404, 503, 429, 200, '4xx'], body: { ref: '{idempotencyKey}' }, keyField: 'ref' }),
    );
    expect(() => readMappingFile(path)).toThrow(
      `AGENT_MAPPING_FILE '${path}' is not a valid mapping:\n` +
        '  operations.book.lookup.url: {idempotency} is not a known reference; start it with one of agent, operation, orderId, processId, step, attempt, try, mode, idempotencyKey, payload, results, compensates, env\n' +
        "  operations.book.lookup: Unrecognized key(s) in object: 'keyField'\n" +
        '  operations.book.lookup.notFoundStatuses.1: 503 cannot mean "not found": a 2xx carries the lookup\'s answer, and a 1xx, 3xx or 5xx says nothing about the effect. List 4xx statuses such as 404 or 410\n' +
        '  operations.book.lookup.notFoundStatuses.2: 429 cannot mean "not found": it says the remote did not answer the question (a timeout, a throttle), and a lookup that fails must be retried, never taken as "not found". List 404 or 410\n' +
        '  operations.book.lookup.notFoundStatuses.3: 200 cannot mean "not found": a 2xx carries the lookup\'s answer, and a 1xx, 3xx or 5xx says nothing about the effect. List 4xx statuses such as 404 or 410\n' +
        '  operations.book.lookup.notFoundStatuses.4: 4xx cannot mean "not found": the class holds 408 and 429, which say the remote did not answer the question (a timeout, a throttle), and a lookup that fails must be retried, never taken as "not found". List 404 or 410\n' +
        '  operations.book.lookup.body: a GET lookup sends no body: remove body, or set method to POST\n' +
        'The references a template may hold: {agent}',
    );
  });

  it('accepts a POST lookup with a body', () => {
    const mapping = readMappingFile(write(book({ method: 'POST', url: 'http://flights.test/search', body: { ref: '{idempotencyKey}' }, matchPath: 'hits', keyPath: 'ref' })));
    expect(mapping.operations['book']?.lookup).toMatchObject({ method: 'POST', body: { ref: '{idempotencyKey}' }, matchPath: 'hits', keyPath: 'ref' });
  });
});

describe('httpAgent with a lookup', () => {
  it('refuses to start when a variable the lookup reads is unset, naming the field', () => {
    const mapping = HttpMapping.parse(book({ url: '{env.FLIGHTS_URL}/flights?ref={idempotencyKey}', headers: { Authorization: 'Bearer {env.FLIGHTS_TOKEN}' } }));
    expect(() => httpAgent('flights', mapping, { env: { FLIGHTS_URL: 'http://f' } })).toThrow(
      "The HTTP mapping of agent 'flights' reads unset variables:\n  operations.book.lookup.headers.Authorization: {env.FLIGHTS_TOKEN} needs FLIGHTS_TOKEN, which is not set",
    );
  });

  it('refuses to start a lookup built in code whose "not found" status could be a failure, or whose reference can never resolve', () => {
    const parsed = HttpMapping.parse(book({ url: 'http://f/flights?ref={idempotencyKey}' }));
    const bad = parsed.operations['book']!;
    const withStatus: HttpMapping = { operations: { book: { ...bad, lookup: { ...bad.lookup!, notFoundStatuses: ['5xx'] } } } };
    expect(() => httpAgent('flights', withStatus, { env: {} })).toThrow(
      "The HTTP mapping of agent 'flights' has lookups that are not valid:\n  operations.book.lookup.notFoundStatuses.0: 5xx cannot mean \"not found\"",
    );
    const withReference: HttpMapping = { operations: { book: { ...bad, lookup: { ...bad.lookup!, key: '{compensates.key}' } } } };
    expect(() => httpAgent('flights', withReference, { env: {} })).toThrow(
      "The HTTP mapping of agent 'flights' has references that can never resolve:\n  operations.book.lookup.key: {compensates.key}: compensates holds idempotencyKey and result only",
    );
  });
});
