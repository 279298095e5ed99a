import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { PermanentError, createLogger } from '@sas/runtime';
import type { AgentCall } from '@sas/agent';
import { httpAgent, readMappingFile } from './http-agent';
import { HttpMapping } from './http-mapping';
import { json, startRemote } from './test-support/local-remote';

const logger = createLogger({ service: 'mapping-checks-test', instanceId: 'test-1', level: 'silent' });

const write = (mapping: unknown): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'mapping-checks-')), 'mapping.json');
  writeFileSync(path, JSON.stringify(mapping));
  return path;
};

function callOf(overrides: Partial<AgentCall<unknown>>): AgentCall<unknown> {
  return {
    agent: 'warehouse',
    operation: 'reserve',
    processId: 'proc-1',
    orderId: 'o-1',
    step: 'reserve-stock',
    mode: 'forward',
    payload: {},
    input: {},
    results: {},
    idempotencyKey: 'proc-1/reserve-stock/forward',
    attempt: 1,
    tryNumber: 1,
    completeBy: Date.now() + 60_000,
    signal: new AbortController().signal,
    logger,
    ...overrides,
  };
}

describe('a mapping checked at start', () => {
  it('refuses a template with a brace that opens or closes no reference, naming the operation and the field', () => {
    const path = write({
      operations: {
        reserve: { url: 'http://wh.test/orders/{payload.orderId/reservation', headers: { 'X-Order': 'o-}' } },
        release: { url: 'http://wh.test/r', body: { note: '{orderId} {payload.x' }, lookup: { url: 'http://wh.test/r?ref={idempotencyKey' } },
      },
    });
    expect(() => readMappingFile(path, {})).toThrow(
      `AGENT_MAPPING_FILE '${path}' is not a valid mapping:\n` +
        "  operations.reserve.url: 'http://wh.test/orders/{payload.orderId/reservation' does not parse: a '{' that opens no reference at character 23; write references as {name.path}, and no braces otherwise\n" +
        "  operations.reserve.headers.X-Order: 'o-}' does not parse: a '}' that closes no reference at character 3; write references as {name.path}, and no braces otherwise\n" +
        "  operations.release.body.note: '{orderId} {payload.x' does not parse: a '{' that opens no reference at character 11; write references as {name.path}, and no braces otherwise\n" +
        "  operations.release.lookup.url: 'http://wh.test/r?ref={idempotencyKey' does not parse: a '{' that opens no reference at character 22; write references as {name.path}, and no braces otherwise",
    );
  });

  it('refuses a URL that does not parse once {env.X} is filled in, naming the operation and the field', () => {
    const path = write({
      operations: { reserve: { url: '{env.WAREHOUSE_URL}/orders/{orderId}', lookup: { url: 'wh.test/orders?ref={idempotencyKey}' } } },
    });
    expect(() => readMappingFile(path, { WAREHOUSE_URL: 'wh.test:port' })).toThrow(
      `AGENT_MAPPING_FILE '${path}' has URLs that cannot be called:\n` +
        "  operations.reserve.url: '{env.WAREHOUSE_URL}/orders/{orderId}' is not an http: or https: URL (wh.test:) once its variables are filled in ('wh.test:port/orders/x' with x for each value from a request)\n" +
        "  operations.reserve.lookup.url: 'wh.test/orders?ref={idempotencyKey}' is not a URL once its variables are filled in ('wh.test/orders?ref=x' with x for each value from a request)",
    );
    const mapping = readMappingFile(write({ operations: { reserve: { url: '{env.WAREHOUSE_URL}/orders/{orderId}' } } }), {});
    expect(() => httpAgent('warehouse', mapping, { env: { WAREHOUSE_URL: 'http://wh test' } })).toThrow(
      "The HTTP mapping of agent 'warehouse' has templates that cannot be filled:\n  operations.reserve.url: '{env.WAREHOUSE_URL}/orders/{orderId}' is not a URL once",
    );
  });

  it('refuses a mapping built in code whose template does not parse', () => {
    const parsed = HttpMapping.parse({ operations: { reserve: { url: 'http://wh.test/orders' } } });
    const built: HttpMapping = { operations: { reserve: { ...parsed.operations['reserve']!, url: 'http://wh.test/orders/{orderId' } } };
    expect(() => httpAgent('warehouse', built, { env: {} })).toThrow(
      "The HTTP mapping of agent 'warehouse' has templates that cannot be filled:\n  operations.reserve.url: 'http://wh.test/orders/{orderId' does not parse",
    );
  });
});

describe('a URL that cannot be built at run time', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('fails the step permanently and sends nothing when a value makes the URL unparseable', async () => {
    const mapping = HttpMapping.parse({ operations: { reserve: { url: '{payload.base}/orders/{orderId}' } } });
    const agent = httpAgent('warehouse', mapping, { env: {} });
    const failure = await agent.operations['reserve']!(callOf({ payload: { base: 'not a url' } })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PermanentError);
    expect((failure as Error).message).toBe(
      "the mapping of warehouse/reserve built its url 'not%20a%20url/orders/o-1', which is not a URL; nothing was sent",
    );
  });

  it('fails the step permanently and sends nothing when a path value would climb out of its segment', async () => {
    const remote = await startRemote([json(200, {})]);
    server = remote.server;
    const mapping = HttpMapping.parse({
      operations: { reserve: { method: 'PUT', url: '{env.WAREHOUSE_URL}/api/orders/{payload.orderId}/reservation', body: null } },
    });
    const agent = httpAgent('warehouse', mapping, { env: { WAREHOUSE_URL: remote.url } });

    const failure = await agent.operations['reserve']!(callOf({ payload: { orderId: '..' } })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PermanentError);
    expect((failure as Error).message).toBe(
      "the mapping of warehouse/reserve cannot build its URL: the value of {payload.orderId} makes the path segment '..', which a URL parser resolves (it would climb out of the path); nothing was sent",
    );

    await agent.operations['reserve']!(callOf({ payload: { orderId: 'a/../b' } }));
    expect(remote.received.map((r) => r.url)).toEqual(['/api/orders/a%2F..%2Fb/reservation']);
  });
});
