import { HttpMapping } from './http-mapping';

/**
 * remote-sim's dialect as a mapping, the default when `AGENT_MAPPING_FILE` is unset:
 * `POST {REMOTE_URL}/services/{agent}/{operation}` with `Idempotency-Key`, on an undo
 * `Compensates-Idempotency-Key`, body `{ orderId, payload, results, step, attempt, try }`; 2xx answers
 * `{ effectId, result }` and the step's result is `{ ...result, effectId }`.
 */
export const remoteSimMapping: HttpMapping = HttpMapping.parse({
  operations: {
    '*': {
      method: 'POST',
      url: '{env.REMOTE_URL}/services/{agent}/{operation}',
      idempotencyHeader: 'Idempotency-Key',
      compensatesHeader: 'Compensates-Idempotency-Key',
      // step, attempt and try are recorded on the call's arrival (remote-sim's `GET /arrivals`).
      body: { orderId: '{orderId}', payload: '{payload}', results: '{results}', step: '{step}', attempt: '{attempt}', try: '{try}' },
      resultPath: 'result',
      resultFields: { effectId: 'effectId' },
    },
  },
});
