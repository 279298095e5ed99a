import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { PermanentError, TransientError, createLogger } from '@sas/runtime';
import type { AgentCall } from '@sas/agent';
import { httpAgent, readMappingFile } from './http-agent';
import { HttpMapping } from './http-mapping';
import { json, startRemote } from './test-support/local-remote';

const logger = createLogger({ service: 'http-agent-test', instanceId: 'test-1', level: 'silent' });

/** The warehouse example of docs/http-mapping.md. */
const warehouse = {
  operations: {
    reserve: {
      method: 'PUT',
      url: '{env.WAREHOUSE_URL}/orders/{orderId}/reservation',
      headers: { Authorization: 'Bearer {env.WAREHOUSE_TOKEN}' },
      idempotencyHeader: 'X-Request-Id',
      body: { sku: '{payload.sku}', quantity: '{payload.quantity}', paidWith: '{results.charge-payment.chargeId}' },
      alreadyDoneStatuses: [409],
      resultPath: 'data.reservation',
    },
    release: {
      method: 'DELETE',
      url: '{env.WAREHOUSE_URL}/reservations/{compensates.result.reservationId}',
      headers: { Authorization: 'Bearer {env.WAREHOUSE_TOKEN}' },
      idempotencyHeader: 'X-Request-Id',
      compensatesHeader: 'X-Undoes',
      body: null,
      alreadyDoneStatuses: [404],
    },
  },
};

function callOf(overrides: Partial<AgentCall<unknown>>): AgentCall<unknown> {
  return {
    agent: 'warehouse',
    operation: 'reserve',
    processId: 'proc-1',
    orderId: 'order 1',
    step: 'reserve-stock',
    mode: 'forward',
    payload: { sku: 'A-1', quantity: 2 },
    input: {},
    results: { 'charge-payment': { chargeId: 'ch-9' } },
    idempotencyKey: 'order 1/reserve-stock/forward',
    attempt: 1,
    tryNumber: 1,
    completeBy: Date.now() + 60_000,
    signal: new AbortController().signal,
    logger,
    ...overrides,
  };
}

describe('the HTTP agent driven by a mapping', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('makes the call the mapping describes and takes the result from resultPath', async () => {
    const remote = await startRemote([json(201, { data: { reservation: { reservationId: 'res-1' } } })]);
    server = remote.server;
    const agent = httpAgent('warehouse', HttpMapping.parse(warehouse), { env: { WAREHOUSE_URL: remote.url, WAREHOUSE_TOKEN: 't0k' } });

    const result = await agent.operations['reserve']!(callOf({}));

    expect(result).toEqual({ reservationId: 'res-1' });
    expect(remote.received[0]).toMatchObject({
      method: 'PUT',
      url: '/orders/order%201/reservation',
      body: { sku: 'A-1', quantity: 2, paidWith: 'ch-9' },
    });
    expect(remote.received[0]?.headers).toMatchObject({
      authorization: 'Bearer t0k',
      'x-request-id': 'order 1/reserve-stock/forward',
      'content-type': 'application/json',
    });
  });

  it('undoes with the forward result in the URL, the forward key in its header, no body, and takes 404 as already done', async () => {
    const remote = await startRemote([json(404, { error: 'no such reservation' })]);
    server = remote.server;
    const agent = httpAgent('warehouse', HttpMapping.parse(warehouse), { env: { WAREHOUSE_URL: remote.url, WAREHOUSE_TOKEN: 't0k' } });

    const result = await agent.operations['release']!(
      callOf({
        operation: 'release',
        mode: 'compensate',
        idempotencyKey: 'order 1/reserve-stock/compensate',
        compensates: { idempotencyKey: 'order 1/reserve-stock/forward', result: { reservationId: 'res-1' } },
      }),
    );

    expect(result).toEqual({});
    expect(remote.received[0]).toMatchObject({ method: 'DELETE', url: '/reservations/res-1', body: undefined });
    expect(remote.received[0]?.headers['x-undoes']).toBe('order 1/reserve-stock/forward');
  });

  it('sends {compensates.idempotencyKey} in the URL and the body of an undo', async () => {
    const remote = await startRemote([json(200, { refunded: true })]);
    server = remote.server;
    const mapping = HttpMapping.parse({ operations: { refund: { url: '{env.URL}/refunds/{compensates.idempotencyKey}', body: { undoes: '{compensates.idempotencyKey}' } } } });
    const agent = httpAgent('payment', mapping, { env: { URL: remote.url } });

    await agent.operations['refund']!(callOf({ operation: 'refund', mode: 'compensate', compensates: { idempotencyKey: 'order 1/charge/forward', result: null } }));

    expect(remote.received[0]).toMatchObject({ url: '/refunds/order%201%2Fcharge%2Fforward', body: { undoes: 'order 1/charge/forward' } });
  });

  describe('with statuses listed as already done', () => {
    const mapping = HttpMapping.parse({
      operations: { reserve: { url: '{env.URL}/r', alreadyDoneStatuses: [409, 503, 200], resultPath: 'data', resultFields: { effectId: 'effectId' } } },
    });
    const reserve = (url: string): ReturnType<typeof httpAgent>['operations'][string] => httpAgent('warehouse', mapping, { env: { URL: url } }).operations['reserve']!;

    it('takes a status that is also transient as already done, with the result {}', async () => {
      const remote = await startRemote([json(503, { error: 'busy' }), json(409, { error: 'exists' })]);
      server = remote.server;
      await expect(reserve(remote.url)(callOf({}))).resolves.toEqual({});
      await expect(reserve(remote.url)(callOf({}))).resolves.toEqual({});
    });

    it('gives a 2xx the result a success gives, and takes one without its result as an unknown outcome', async () => {
      const remote = await startRemote([json(200, { data: { id: 'r-1' }, effectId: 'e-1' }), json(200, { data: { id: 'r-1' } })]);
      server = remote.server;
      await expect(reserve(remote.url)(callOf({}))).resolves.toEqual({ id: 'r-1', effectId: 'e-1' });
      const failure = await reserve(remote.url)(callOf({})).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(TransientError);
      expect((failure as Error).message).toMatch(/^warehouse\/reserve answered 200 without its result \(effectId: missing\)/);
    });
  });

  it('fails permanently, sending nothing, when the request lacks what the mapping references', async () => {
    const remote = await startRemote([json(200, {})]);
    server = remote.server;
    const agent = httpAgent('warehouse', HttpMapping.parse(warehouse), { env: { WAREHOUSE_URL: remote.url, WAREHOUSE_TOKEN: 't0k' } });

    const failure = await agent.operations['release']!(callOf({ operation: 'release', mode: 'compensate' })).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(PermanentError);
    expect((failure as Error).message).toBe(
      'the mapping of warehouse/release needs {compensates.result.reservationId}, which this request does not carry; nothing was sent',
    );
    expect(remote.received).toHaveLength(0);
  });

  it('refuses to start when a variable the mapping reads is unset, naming the field', () => {
    expect(() => httpAgent('warehouse', HttpMapping.parse(warehouse), { env: { WAREHOUSE_URL: 'http://x' } })).toThrow(
      'operations.reserve.headers.Authorization: {env.WAREHOUSE_TOKEN} needs WAREHOUSE_TOKEN, which is not set',
    );
  });

  it('refuses to start a mapping built in code whose reference can never resolve, and lists the valid ones', () => {
    const built: HttpMapping = { operations: { refund: { ...HttpMapping.parse({ operations: { refund: { url: 'http://s' } } }).operations['refund']!, url: 'http://s/{compensates.foo.id}' } } };
    expect(() => httpAgent('payment', built, { env: {} })).toThrow(
      "The HTTP mapping of agent 'payment' has references that can never resolve:\n" +
        '  operations.refund.url: {compensates.foo.id}: compensates holds idempotencyKey and result only; write {compensates.idempotencyKey} or {compensates.result.FIELD}\n' +
        'The references a template may hold: {agent}',
    );
  });

  describe('reading a mapping file', () => {
    const write = (content: string): string => {
      const path = join(mkdtempSync(join(tmpdir(), 'mapping-')), 'mapping.json');
      writeFileSync(path, content);
      return path;
    };

    it('reads a valid file, filling defaults', () => {
      const mapping = readMappingFile(write(JSON.stringify({ operations: { ship: { url: 'http://s/{orderId}' } } })));
      expect(mapping.operations['ship']).toMatchObject({ method: 'POST', idempotencyHeader: 'Idempotency-Key', transientStatuses: [429, '5xx'] });
    });

    it('names the bad field', () => {
      const path = write(
        JSON.stringify({ operations: { ship: { url: 'http://s/{order.id}', transientStatuses: ['5XX'], methd: 'PUT' } } }),
      );
      expect(() => readMappingFile(path)).toThrow(
        `AGENT_MAPPING_FILE '${path}' is not a valid mapping:\n` +
          '  operations.ship.url: {order.id} is not a known reference; start it with one of agent, operation, orderId, processId, step, attempt, try, mode, idempotencyKey, payload, results, compensates, env\n' +
          "  operations.ship.transientStatuses.0: a status class is written like '5xx'\n" +
          "  operations.ship: Unrecognized key(s) in object: 'methd'\n" +
          'The references a template may hold: {agent} {operation} {orderId} {processId} {step} {attempt} {try} {mode} {idempotencyKey} {payload} {payload.PATH} ' +
          '{results} {results.STEP} {results.STEP.PATH} {compensates} {compensates.idempotencyKey} {compensates.result} {compensates.result.PATH} {env.NAME}',
      );
    });

    it('refuses at start a reference whose later segment can never resolve, naming the operation and the field', () => {
      const undo = { url: 'http://s/undo/{compensates.result.id}', body: { undoes: '{compensates.idempotencyKey}', ref: ['{compensates.foo.id}'] } };
      const path = write(JSON.stringify({ operations: { refund: undo } }));
      expect(() => readMappingFile(path)).toThrow(
        `AGENT_MAPPING_FILE '${path}' is not a valid mapping:\n` +
          '  operations.refund.body.ref.0: {compensates.foo.id}: compensates holds idempotencyKey and result only; write {compensates.idempotencyKey} or {compensates.result.FIELD}\n' +
          'The references a template may hold: {agent}',
      );
    });

    it('says when the file is not JSON', () => {
      const path = write('{ operations');
      expect(() => readMappingFile(path)).toThrow(`AGENT_MAPPING_FILE '${path}' is not JSON:`);
    });
  });
});
