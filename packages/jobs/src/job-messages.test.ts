import { JobFailureMessage, JobTriggerMessage, SubmissionMessage } from '@sas/contracts';
import { failureMessage, orderIdFor, triggerMessage } from './job-messages';
import { newJobDocument } from './new-job-document';
import { jobSpec } from './test-support/job-spec';
import { validateJobSpecification } from './validate-job-specification';

function job(overrides: Record<string, unknown> = {}): ReturnType<typeof newJobDocument> & { ok: true } {
  const spec = validateJobSpecification(jobSpec(overrides));
  if (!spec.ok) throw new Error(spec.issues.join('; '));
  const built = newJobDocument(spec.spec, 'job-1', new Date('2024-05-01T00:00:00Z'));
  if (!built.ok) throw new Error(built.reason);
  return built;
}

const fireTime = new Date('2024-05-01T02:00:00.250Z');

describe('messages a job sends', () => {
  it('submits an order whose id is the trigger identifier at the fire time', () => {
    const out = triggerMessage(job({ triggerCommand: { type: 'submit', workflow: 'order-fulfilment', payload: { a: 1 }, replyTo: 'app.status' } }).doc, fireTime);
    expect(out).toEqual({
      queue: 'submission',
      jobId: 'job.job-1.1714528800250',
      message: { schemaVersion: 1, orderId: 'nightly@2024-05-01T02:00:00.250Z', workflow: 'order-fulfilment', payload: { a: 1 }, replyTo: 'app.status' },
    });
    expect(SubmissionMessage.safeParse(out.message).success).toBe(true);
    expect(orderIdFor('nightly', fireTime)).toBe('nightly@2024-05-01T02:00:00.250Z');
  });

  it('wraps a message command with the key and fire time, so the receiver can deduplicate', () => {
    const context = { processingEntity: 'bank-1', clientRequestId: 'r-1', unitOfWorkId: 'u-1' };
    const out = triggerMessage(job({ triggerCommand: { type: 'message', queue: 'billing.run', message: { batch: 7 } }, processingContext: context }).doc, fireTime);
    expect(out.queue).toBe('billing.run');
    expect(out.message).toEqual({
      schemaVersion: 1,
      jobSpecificationKey: 'nightly-report',
      triggerIdentifier: 'nightly',
      fireTime: fireTime.getTime(),
      processingContext: context,
      command: { batch: 7 },
    });
    expect(JobTriggerMessage.safeParse(out.message).success).toBe(true);
  });

  it('sends the failure command with the reason', () => {
    const out = failureMessage(job().doc, fireTime, 'queue down');
    expect(out).toEqual({
      queue: 'reporting.failures',
      jobId: 'job-failure.job-1.1714528800250',
      message: {
        schemaVersion: 1,
        jobSpecificationKey: 'nightly-report',
        failureIdentifier: 'nightly-failed',
        fireTime: fireTime.getTime(),
        reason: 'queue down',
        command: { alert: 'nightly report did not start' },
      },
    });
    expect(JobFailureMessage.safeParse(out.message).success).toBe(true);
  });
});
