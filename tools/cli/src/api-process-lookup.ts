import type { ProcessDocument } from '@sas/contracts';
import { explainApiRefusal, type DashboardApi } from './dashboard-api';
import type { ProcessLookup } from './resolve-process';

/**
 * A process lookup over the dashboard's read routes, for the CLI's writes on the API path
 * (operator commands, signals): the target is resolved with the API's reads, so an id that is one
 * process's id and another's orderId is refused as on the direct path.
 */
export function apiProcessLookup(api: DashboardApi): ProcessLookup {
  const refusal = (answer: { status: number; body: Record<string, unknown> }): Error => new Error(`the dashboard refused the lookup: ${explainApiRefusal(answer, api.baseUrl)}`);
  return {
    async get(id) {
      const answer = await api.send('GET', `/api/processes/${encodeURIComponent(id)}`);
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw refusal(answer);
      // The route also answers for an orderId; only an exact process id is a match by id.
      return answer.body['_id'] === id ? (answer.body as unknown as ProcessDocument) : null;
    },
    async getByOrderId(orderId) {
      const answer = await api.send('GET', `/api/processes?orderId=${encodeURIComponent(orderId)}&limit=1`);
      if (answer.status !== 200) throw refusal(answer);
      return ((answer.body['processes'] as ProcessDocument[] | undefined) ?? [])[0] ?? null;
    },
  };
}
