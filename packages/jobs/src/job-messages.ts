import { QueueNames, SCHEMA_VERSION, type JobFailureMessage, type JobSpecificationDocument, type JobTriggerMessage, type SubmissionMessage } from '@sas/contracts';

/** One message to send: where, what, and the BullMQ job id that drops a second copy. */
export interface OutgoingMessage {
  queue: string;
  message: SubmissionMessage | JobTriggerMessage | JobFailureMessage;
  jobId: string;
}

/**
 * The orderId a `submit` trigger uses: `<triggerIdentifier>@<fire time ISO>`. The same fire time
 * always gives the same orderId and the same BullMQ job id, so a second firing of it (a firing
 * redone after a crash) never makes a second order: BullMQ drops it while the first submission is
 * still in the queue, and otherwise submission finds the same order with the same fingerprint and
 * answers it as it answered the first (`Received` again, the same event id), NOT `Duplicate`. So
 * nothing downstream tells a second firing apart; only its arrival at the queue shows it.
 */
export function orderIdFor(triggerIdentifier: string, fireTime: Date): string {
  return `${triggerIdentifier}@${fireTime.toISOString()}`;
}

/** The message a job sends at `fireTime`. */
export function triggerMessage(job: JobSpecificationDocument, fireTime: Date): OutgoingMessage {
  // BullMQ job ids may not contain ':', so they use epoch milliseconds.
  const jobId = `job.${job._id}.${fireTime.getTime()}`;
  const command = job.triggerCommand;
  if (command.type === 'submit') {
    const message: SubmissionMessage = {
      schemaVersion: SCHEMA_VERSION,
      orderId: orderIdFor(job.triggerIdentifier, fireTime),
      workflow: command.workflow,
      payload: command.payload,
      ...(command.replyTo ? { replyTo: command.replyTo } : {}),
    };
    return { queue: QueueNames.submission, message, jobId };
  }
  const message: JobTriggerMessage = {
    schemaVersion: SCHEMA_VERSION,
    jobSpecificationKey: job.jobSpecificationKey,
    triggerIdentifier: job.triggerIdentifier,
    fireTime: fireTime.getTime(),
    ...(job.processingContext ? { processingContext: { ...job.processingContext } } : {}),
    command: command.message,
  };
  return { queue: command.queue, message, jobId };
}

/** The message a job's failure command sends when the firing at `fireTime` failed for `reason`. */
export function failureMessage(job: JobSpecificationDocument, fireTime: Date, reason: string): OutgoingMessage {
  const message: JobFailureMessage = {
    schemaVersion: SCHEMA_VERSION,
    jobSpecificationKey: job.jobSpecificationKey,
    failureIdentifier: job.failureIdentifier,
    fireTime: fireTime.getTime(),
    reason,
    ...(job.processingContext ? { processingContext: { ...job.processingContext } } : {}),
    command: job.failureCommand.message,
  };
  return { queue: job.failureCommand.queue, message, jobId: `job-failure.${job._id}.${fireTime.getTime()}` };
}
