import { z } from 'zod';
import { MAX_STEP_RESULT_BYTES } from '@sas/contracts';
import { defineOperation } from './agent-definition';
import { workerFixture } from './test-support/worker-fixture';

describe('AgentWorker with handlers per operation', () => {
  describe('when a step carries earlier results', () => {
    it('hands the handler the earlier steps’ results and the request’s identity', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }] });
      const request = f.request({ results: { 'reserve-inventory': { reservationId: 'r-1' } } });

      await f.time.run(f.worker.handle(request));

      expect(f.calls[0]?.call).toMatchObject({
        processId: request.processId,
        orderId: request.orderId,
        step: 'charge-card',
        mode: 'forward',
        operation: 'charge',
        results: { 'reserve-inventory': { reservationId: 'r-1' } },
        attempt: 3,
        completeBy: request.completeBy,
      });
    });
  });

  describe('when the operation has an input schema', () => {
    const charge = defineOperation({
      input: z.object({ amount: z.number().positive(), currency: z.string().default('EUR') }),
      handle: (call) => Promise.resolve({ charged: call.input.amount, currency: call.input.currency }),
    });

    it('calls the handler with the parsed input', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }], operations: { charge } });

      await f.time.run(f.worker.handle(f.request({ payload: { amount: 42 } })));

      expect(f.replies[0]?.reply).toMatchObject({ outcome: 'ok', result: { charged: 42, currency: 'EUR' } });
    });

    it('replies a permanent error naming the field, without calling the handler or retrying', async () => {
      const handle = jest.fn(() => Promise.resolve({}));
      const f = workerFixture({
        script: [{ kind: 'ok' }],
        operations: { charge: { input: z.object({ amount: z.number() }), handle } },
      });

      const outcome = await f.time.run(f.worker.handle(f.request({ payload: { amount: 'lots' } })));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'permanent', calls: 0 });
      expect(handle).not.toHaveBeenCalled();
      expect(f.replies[0]?.reply).toMatchObject({
        outcome: 'error',
        errorKind: 'permanent',
        message: 'payload of payment/charge does not match its input schema: amount: Expected number, received string',
      });
    });
  });

  describe('when the operation is unknown', () => {
    it('replies a permanent error naming the operations the agent knows', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }] });

      const outcome = await f.time.run(f.worker.handle(f.request({ operation: 'chrage' })));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'permanent', calls: 0 });
      expect(f.replies[0]?.reply).toMatchObject({
        message:
          "agent 'payment' has no operation 'chrage' (it knows 'charge', 'refund'); check the workflow's step or the agent's operations",
      });
    });
  });

  describe('when the result cannot be carried', () => {
    it('replies ok with an empty result and says why, when the result is too large', async () => {
      const big = { blob: 'x'.repeat(MAX_STEP_RESULT_BYTES) };
      const f = workerFixture({ script: [{ kind: 'return', value: big }] });

      const outcome = await f.time.run(f.worker.handle(f.request()));

      expect(outcome).toEqual({ kind: 'replied-ok', calls: 1 });
      expect(f.replies[0]?.reply).toMatchObject({
        outcome: 'ok',
        result: {},
        resultRefused: `the result is ${MAX_STEP_RESULT_BYTES + 11} bytes as JSON, more than the ${MAX_STEP_RESULT_BYTES} a step result may carry`,
      });
    });

    it('replies ok with an empty result and says why, when the handler returned no JSON object', async () => {
      const f = workerFixture({ script: [{ kind: 'return', value: [1, 2] }] });

      await f.time.run(f.worker.handle(f.request()));

      expect(f.replies[0]?.reply).toMatchObject({
        outcome: 'ok',
        result: {},
        resultRefused: 'the handler returned an array, not a JSON object',
      });
    });
  });

  describe('when the handler throws something that is neither TransientError nor PermanentError', () => {
    it('takes it as an unknown outcome: retries under the same idempotency key, then succeeds', async () => {
      const f = workerFixture({
        script: [{ kind: 'throw', value: new TypeError('fetch failed') }, { kind: 'throw', value: 'boom' }, { kind: 'ok' }],
      });
      const request = f.request();

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toEqual({ kind: 'replied-ok', calls: 3 });
      expect(f.calls.map((c) => c.call.idempotencyKey)).toEqual([
        request.idempotencyKey,
        request.idempotencyKey,
        request.idempotencyKey,
      ]);
      expect(f.calls.map((c) => c.call.tryNumber)).toEqual([1, 2, 3]);
      expect(f.lines).toContainEqual(
        expect.objectContaining({
          msg: 'handler threw neither TransientError nor PermanentError: unknown outcome, retried as transient',
          err: 'fetch failed',
        }),
      );
    });

    it('replies a transient error (never a permanent one) once the retries run out', async () => {
      const f = workerFixture({ script: [{ kind: 'throw', value: new RangeError('socket hang up') }] });

      const outcome = await f.time.run(f.worker.handle(f.request()));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'transient', calls: 4 });
    });
  });
});
