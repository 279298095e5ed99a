import type { Alert } from '@sas/contracts';
import { alertEntry, alertRecord } from './alert-record';

const DAY = 24 * 60 * 60 * 1000;
const alert: Alert = {
  schemaVersion: 1,
  kind: 'ThresholdReached',
  processId: 'p-1',
  orderId: 'A-1',
  step: 'reserve-inventory',
  failureCount: 3,
  reason: 'reserve-inventory failed 3 times',
  at: Date.parse('2025-01-01T00:00:00.000Z'),
};
const receivedAt = new Date('2025-01-01T00:00:00.250Z');

describe('turning a consumed alert into the document the dashboard stores', () => {
  it('keys it by the job id, so a redelivery of the same job maps to the same document', () => {
    expect(alertRecord(alert, 'p-1.4.0', receivedAt, 30 * DAY)._id).toBe('p-1.4.0');
    expect(alertRecord(alert, 'p-1.4.0', new Date(receivedAt.getTime() + 5_000), 30 * DAY)._id).toBe('p-1.4.0');
  });

  it('keeps the alert as it arrived, with when it was received and when the TTL removes it', () => {
    expect(alertRecord(alert, 'p-1.4.0', receivedAt, 30 * DAY)).toEqual({
      _id: 'p-1.4.0',
      alert,
      receivedAt,
      deleteTime: new Date('2025-01-31T00:00:00.250Z'),
    });
  });

  it('refuses a delivery without a job id, because nothing would then stop it being stored twice', () => {
    expect(() => alertRecord(alert, '', receivedAt, DAY)).toThrow(
      "Alert 'ThresholdReached' (reserve-inventory failed 3 times) came without a job id, so it cannot be stored idempotently; this is a bug in the consumer wiring",
    );
  });
});

describe('listing a stored alert in the API', () => {
  it('answers its id, the ISO time it was received and the alert as data, without storage fields', () => {
    expect(alertEntry(alertRecord(alert, 'p-1.4.0', receivedAt, DAY))).toEqual({ id: 'p-1.4.0', receivedAt: '2025-01-01T00:00:00.250Z', data: alert });
  });
});
