import { JobSpecificationService } from './job-specification-service';
import { InMemoryJobStore } from './in-memory-job-store';
import { jobSpec } from './test-support/job-spec';
import { FakeClock } from './test-support/runner-harness';

describe('managing job specifications', () => {
  let clock: FakeClock;
  let jobs: JobSpecificationService;

  beforeEach(() => {
    clock = new FakeClock(Date.parse('2024-05-01T09:30:00Z'));
    let n = 0;
    jobs = new JobSpecificationService(new InMemoryJobStore(), { clock, retentionMs: 1000, newId: () => `job-${++n}` });
  });

  it('creates a SCHEDULED job with its first fire time and one status entry', async () => {
    const created = await jobs.create(jobSpec({ zoneId: 'Europe/Paris' }), 'ops');
    expect(created).toMatchObject({ ok: true, job: { _id: 'job-1', status: 'SCHEDULED', zoneId: 'Europe/Paris', nextFireTime: new Date('2024-05-02T00:00:00Z') } });
    const shown = await jobs.show('nightly-report');
    expect(shown?.history.map((e) => [e.executionStatus, e.by])).toEqual([['SCHEDULED', 'ops']]);
    expect(shown?.current?._id).toBe('job-1/SCHEDULED');
  });

  it('refuses a key that exists, saying so', async () => {
    await jobs.create(jobSpec(), 'ops');
    expect(await jobs.create(jobSpec({ jobRequestor: 'other' }), 'ops')).toEqual({
      ok: false,
      error: 'exists',
      message: "A job with key 'nightly-report' already exists (SCHEDULED); choose another key, or cancel it first and wait for its removal",
      issues: [],
    });
  });

  it('refuses an invalid specification with every issue in the message', async () => {
    const result = await jobs.create(jobSpec({ zoneId: 'Nowhere/City', jobRequestor: '' }), 'ops');
    expect(result).toMatchObject({ ok: false, error: 'invalid' });
    expect(!result.ok && result.message).toMatch(/^Job specification is not valid: jobRequestor: .*; zoneId: zoneId 'Nowhere\/City' is not an IANA time zone id/);
  });

  it('lists unfinished jobs, by requestor when asked, and finished ones only on request', async () => {
    await jobs.create(jobSpec({ jobSpecificationKey: 'b', jobRequestor: 'billing' }), 'ops');
    await jobs.create(jobSpec({ jobSpecificationKey: 'a', jobRequestor: 'reporting' }), 'ops');
    await jobs.create(jobSpec({ jobSpecificationKey: 'c', jobRequestor: 'reporting' }), 'ops');
    await jobs.cancel('c', 'ops');
    expect((await jobs.list()).map((j) => j.jobSpecificationKey)).toEqual(['a', 'b']);
    expect((await jobs.list({ requestor: 'reporting' })).map((j) => j.jobSpecificationKey)).toEqual(['a']);
    expect((await jobs.list({ requestor: 'reporting', includeFinished: true })).map((j) => j.jobSpecificationKey)).toEqual(['a', 'c']);
  });

  it('cancels a SCHEDULED job with a deleteTime, and refuses to cancel it twice or a missing one', async () => {
    await jobs.create(jobSpec(), 'ops');
    const canceled = await jobs.cancel('nightly-report', 'alice');
    expect(canceled).toMatchObject({ ok: true, job: { status: 'CANCELED', nextFireTime: null, deleteTime: new Date(Date.parse('2024-05-01T09:30:01Z')) } });
    expect(await jobs.cancel('nightly-report', 'alice')).toEqual({
      ok: false,
      error: 'finished',
      message: "Job 'nightly-report' is CANCELED; only SCHEDULED jobs can be canceled",
    });
    expect(await jobs.cancel('nope', 'alice')).toEqual({ ok: false, error: 'not-found', message: "No job with key 'nope'; list them with 'sas jobs list'" });
    expect((await jobs.show('nightly-report'))?.history.map((e) => e.executionStatus)).toEqual(['SCHEDULED', 'CANCELED']);
  });
});
