import type { AgentCall } from '@sas/agent';
import { HttpMapping, createHttpRemoteCall, type HttpFetch } from '@sas/http-agent';
import { PermanentError, TransientError, createLogger } from '@sas/runtime';

/**
 * What docs/http-mapping.md and docs/reference/mapping-format.md say the HTTP agent does with a
 * mapping, held to the agent's own code: the compensates header, `{compensates.idempotencyKey}`,
 * and what `alreadyDoneStatuses` stores and wins over.
 */

type Sent = { url: string; headers: Record<string, string>; body?: string };

/** A remote that answers `status` with `body` and records what it was sent. */
function remote(status: number, body: string): { fetch: HttpFetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: HttpFetch = async (url, init) => {
    sent.push({ url, headers: init.headers as Record<string, string>, ...(typeof init.body === 'string' ? { body: init.body } : {}) });
    return { status, headers: { get: () => null }, text: async () => body };
  };
  return { fetch, sent };
}

const forward: AgentCall<unknown> = {
  agent: 'warehouse',
  operation: 'reserve',
  processId: 'p-1',
  orderId: 'o-1',
  step: 'reserve-stock',
  mode: 'forward',
  payload: { sku: 'kettle' },
  input: { sku: 'kettle' },
  results: {},
  idempotencyKey: 'p-1/reserve-stock',
  attempt: 1,
  tryNumber: 1,
  completeBy: Date.now() + 60_000,
  logger: createLogger({ service: 'docs-test', instanceId: 'docs-1', level: 'silent' }),
  signal: new AbortController().signal,
};
const undo: AgentCall<unknown> = {
  ...forward,
  operation: 'release',
  mode: 'compensate',
  idempotencyKey: 'p-1/reserve-stock/compensate',
  compensates: { idempotencyKey: 'p-1/reserve-stock', result: { reservationId: 'r-9' } },
};

const operation = (fields: Record<string, unknown>): HttpMapping['operations'][string] =>
  HttpMapping.parse({ operations: { '*': { url: 'http://warehouse.test/{operation}', ...fields } } }).operations['*']!;

describe('the compensates header and reference (docs/http-mapping.md, "Undoing a call")', () => {
  it('sends no header naming the forward call unless the mapping names one', async () => {
    const { fetch, sent } = remote(200, '{}');
    await createHttpRemoteCall(operation({}), { fetch })(undo);
    expect(Object.keys(sent[0]?.headers ?? {}).sort()).toEqual(['Idempotency-Key', 'content-type']);
    expect(sent[0]?.headers['Idempotency-Key']).toBe('p-1/reserve-stock/compensate');
  });

  it('sends the forward key in compensatesHeader, and {compensates.idempotencyKey} and {compensates.result.a} where the mapping puts them', async () => {
    const { fetch, sent } = remote(200, '{}');
    const mapping = operation({ url: 'http://warehouse.test/reservations/{compensates.result.reservationId}', compensatesHeader: 'X-Undoes', body: { undoes: '{compensates.idempotencyKey}' } });
    await createHttpRemoteCall(mapping, { fetch })(undo);
    expect(sent[0]).toEqual({
      url: 'http://warehouse.test/reservations/r-9',
      headers: { 'Idempotency-Key': 'p-1/reserve-stock/compensate', 'X-Undoes': 'p-1/reserve-stock', 'content-type': 'application/json' },
      body: JSON.stringify({ undoes: 'p-1/reserve-stock' }),
    });
  });

  it('fails a forward call whose mapping refers to {compensates.…} permanently, sending nothing', async () => {
    const { fetch, sent } = remote(200, '{}');
    await expect(createHttpRemoteCall(operation({ body: { undoes: '{compensates.idempotencyKey}' } }), { fetch })(forward)).rejects.toBeInstanceOf(PermanentError);
    expect(sent).toEqual([]);
  });
});

describe('alreadyDoneStatuses (docs/http-mapping.md, "How an answer is read")', () => {
  it('wins over transientStatuses: a status in both is a success', async () => {
    const { fetch } = remote(503, '{"error":"already reserved"}');
    await expect(createHttpRemoteCall(operation({ alreadyDoneStatuses: [503] }), { fetch })(forward)).resolves.toEqual({});
    await expect(createHttpRemoteCall(operation({ alreadyDoneStatuses: ['4xx'], transientStatuses: [429] }), { fetch: remote(429, '').fetch })(forward)).resolves.toEqual({});
  });

  it('stores {} for a status that is not 2xx, whatever its body says', async () => {
    const { fetch } = remote(409, '{"data":{"reservation":{"reservationId":"r-1"}}}');
    await expect(createHttpRemoteCall(operation({ alreadyDoneStatuses: [409], resultPath: 'data.reservation' }), { fetch })(forward)).resolves.toEqual({});
  });

  it('reads a 2xx as a success: the object at resultPath with resultFields, and a body it cannot read is retried', async () => {
    const mapping = operation({ alreadyDoneStatuses: [208], resultPath: 'data.reservation', resultFields: { at: 'meta.at' } });
    const body = '{"data":{"reservation":{"reservationId":"r-1"}},"meta":{"at":"t"}}';
    await expect(createHttpRemoteCall(mapping, { fetch: remote(208, body).fetch })(forward)).resolves.toEqual({ reservationId: 'r-1', at: 't' });
    await expect(createHttpRemoteCall(mapping, { fetch: remote(208, 'not json').fetch })(forward)).rejects.toBeInstanceOf(TransientError);
    // The same body as a plain success copies resultFields.
    await expect(createHttpRemoteCall(operation({ resultPath: 'data.reservation', resultFields: { at: 'meta.at' } }), { fetch: remote(200, body).fetch })(forward)).resolves.toEqual({ reservationId: 'r-1', at: 't' });
  });
});
