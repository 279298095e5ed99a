import { InvalidOrderError } from './errors/invalid-order-error';
import { PayloadChecks } from './payload-checks';
import { SasClient } from './sas-client';

const trip = { name: 'trip', version: 1, inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } } };
const tripV2 = { name: 'trip', version: 2, inputSchema: { type: 'object', required: ['amount', 'hotel'] } };

describe('PayloadChecks', () => {
  it('checks the named version, or the newest known when the order names none', () => {
    const checks = new PayloadChecks([trip, tripV2]);
    expect(checks.issues('trip', 1, { amount: '12' })).toEqual(['payload.amount: must be number']);
    expect(checks.issues('trip', undefined, { amount: 12 })).toEqual(['payload.hotel: is required']);
    expect(checks.issues('trip', 1, { amount: 12 })).toEqual([]);
  });

  it('leaves workflows it was not given, and versions it does not know, to the submission service', () => {
    const checks = new PayloadChecks([trip]);
    expect(checks.issues('other', undefined, { amount: 'x' })).toEqual([]);
    expect(checks.issues('trip', 9, { amount: 'x' })).toEqual([]);
  });

  it('refuses a schema that does not compile, naming the workflow', () => {
    expect(() => new PayloadChecks([{ name: 'trip', version: 3, inputSchema: { type: 'object', requried: ['x'] } }])).toThrow(
      /workflows: 'trip' v3 has an invalid inputSchema: strict mode: unknown keyword: "requried"/,
    );
  });
});

describe('SasClient with workflows', () => {
  it('refuses an order whose payload does not fit before sending anything', async () => {
    // Port 1 has no Redis: the order must be refused before the client tries to send it.
    const client = new SasClient({ redisUrl: 'redis://127.0.0.1:1', workflows: [trip], sendTimeoutMs: 200, onError: () => undefined });
    try {
      await expect(client.submit({ orderId: 'o-1', workflow: 'trip', payload: { amount: 'twelve' } })).rejects.toThrow(
        new InvalidOrderError('o-1', ['payload.amount: must be number']),
      );
    } finally {
      await client.close();
    }
  });
});
