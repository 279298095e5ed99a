import { jobSpec } from './test-support/job-spec';
import { newJobDocument } from './new-job-document';
import { validateJobSpecification, type JobSpecificationValidation } from './validate-job-specification';

function issuesOf(result: JobSpecificationValidation): string[] {
  if (result.ok) throw new Error('expected the specification to be refused');
  return result.issues;
}

describe('validating a job specification', () => {
  it('accepts a recurring job and a one-off job', () => {
    expect(validateJobSpecification(jobSpec()).ok).toBe(true);
    expect(validateJobSpecification(jobSpec({ schedulingSpecification: undefined, singleSchedule: '2030-01-01T09:30:00.250Z' })).ok).toBe(true);
  });

  it('refuses both a cron expression and a single schedule', () => {
    const issues = issuesOf(validateJobSpecification(jobSpec({ singleSchedule: '2030-01-01T09:30:00Z' })));
    expect(issues).toEqual(['(message): set exactly one of schedulingSpecification (recurring, cron) or singleSchedule (one-off instant), not both']);
  });

  it('refuses neither a cron expression nor a single schedule', () => {
    const issues = issuesOf(validateJobSpecification(jobSpec({ schedulingSpecification: undefined })));
    expect(issues).toEqual([
      '(message): set one of schedulingSpecification (a cron expression, for a recurring job) or singleSchedule (an ISO-8601 instant, for a one-off job)',
    ]);
  });

  it('stores a misfire threshold and policy when given, as a version-2 document, and refuses bad ones saying what to write', () => {
    const spec = validateJobSpecification(jobSpec({ misfireThresholdMs: 5000, misfirePolicy: 'skip' }));
    if (!spec.ok) throw new Error(spec.issues.join());
    const built = newJobDocument(spec.spec, 'job-1', new Date('2029-12-31T00:00:00Z'));
    expect(built.ok && built.doc).toMatchObject({ schemaVersion: 2, misfireThresholdMs: 5000, misfirePolicy: 'skip' });
    const plain = validateJobSpecification(jobSpec());
    const plainDoc = plain.ok ? newJobDocument(plain.spec, 'job-2', new Date('2029-12-31T00:00:00Z')) : null;
    expect(plainDoc?.ok && Object.keys(plainDoc.doc).filter((k) => k.startsWith('misfire'))).toEqual([]);
    expect(issuesOf(validateJobSpecification(jobSpec({ misfirePolicy: 'sometimes' })))).toEqual(["misfirePolicy: misfirePolicy must be 'fireOnce' or 'skip'"]);
    expect(issuesOf(validateJobSpecification(jobSpec({ misfireThresholdMs: -1 })))).toEqual(['misfireThresholdMs: misfireThresholdMs must not be negative']);
    expect(issuesOf(validateJobSpecification(jobSpec({ misfireThresholdMs: '60s' })))).toEqual(['misfireThresholdMs: misfireThresholdMs must be a number of milliseconds, e.g. 60000']);
  });

  it('keeps the milliseconds of a single schedule and refuses finer precision or a missing offset', () => {
    const spec = validateJobSpecification(jobSpec({ schedulingSpecification: undefined, singleSchedule: '2030-01-01T10:30:00.123+01:00' }));
    if (!spec.ok) throw new Error(spec.issues.join());
    const built = newJobDocument(spec.spec, 'job-1', new Date('2029-12-31T00:00:00Z'));
    expect(built.ok && built.doc.singleSchedule?.toISOString()).toBe('2030-01-01T09:30:00.123Z');
    expect(built.ok && built.doc.nextFireTime?.getTime()).toBe(Date.parse('2030-01-01T09:30:00.123Z'));
    for (const bad of ['2030-01-01T09:30:00.1234Z', '2030-01-01T09:30:00', 'tomorrow']) {
      expect(issuesOf(validateJobSpecification(jobSpec({ schedulingSpecification: undefined, singleSchedule: bad })))).toEqual([
        `singleSchedule: singleSchedule must be an ISO-8601 instant with an offset and at most millisecond precision, e.g. 2025-03-01T09:30:00.250Z (got '${bad}')`,
      ]);
    }
  });

  it('refuses an unknown zone id and says what a valid one looks like', () => {
    expect(issuesOf(validateJobSpecification(jobSpec({ zoneId: 'Mars/Olympus' })))).toEqual([
      "zoneId: zoneId 'Mars/Olympus' is not an IANA time zone id such as Europe/Paris; leave it out to use UTC",
    ]);
  });

  it('defaults the zone to UTC and stores a valid zone in its canonical spelling', () => {
    const now = new Date('2024-01-15T00:00:00Z');
    const utc = validateJobSpecification(jobSpec());
    const paris = validateJobSpecification(jobSpec({ zoneId: 'europe/paris' }));
    if (!utc.ok || !paris.ok) throw new Error('expected valid specifications');
    const [a, b] = [newJobDocument(utc.spec, 'a', now), newJobDocument(paris.spec, 'b', now)];
    expect(a.ok && [a.doc.zoneId, a.doc.nextFireTime?.toISOString()]).toEqual(['UTC', '2024-01-15T02:00:00.000Z']);
    expect(b.ok && [b.doc.zoneId, b.doc.nextFireTime?.toISOString()]).toEqual(['Europe/Paris', '2024-01-15T01:00:00.000Z']);
  });

  it('refuses an invalid cron expression with the reason', () => {
    expect(issuesOf(validateJobSpecification(jobSpec({ schedulingSpecification: '0 25 * * *' })))).toEqual([
      "schedulingSpecification: schedulingSpecification '0 25 * * *' is not a valid cron expression: Constraint error, got value 25 expected range 0-23",
    ]);
    expect(issuesOf(validateJobSpecification(jobSpec({ schedulingSpecification: '* * * *' })))[0]).toMatch(/has 4 field\(s\); write 5/);
  });

  it('requires all three processing-context values when a context is given', () => {
    const issues = issuesOf(validateJobSpecification(jobSpec({ processingContext: { processingEntity: 'bank-1', clientRequestId: 'r-1' } })));
    expect(issues).toEqual([
      'processingContext.unitOfWorkId: processingContext needs unitOfWorkId (processingEntity, clientRequestId and unitOfWorkId go together)',
    ]);
    expect(validateJobSpecification(jobSpec({ processingContext: { processingEntity: 'bank-1', clientRequestId: 'r-1', unitOfWorkId: 'u-1' } })).ok).toBe(true);
  });

  it('refuses unknown fields, bad holidays and queue names with a colon', () => {
    expect(issuesOf(validateJobSpecification(jobSpec({ schedulingSpecifcation: '* * * * *' })))[0]).toMatch(/Unrecognized key\(s\) in object: 'schedulingSpecifcation'/);
    expect(issuesOf(validateJobSpecification(jobSpec({ calendar: { holidays: ['2024-02-30'] } })))).toEqual(["calendar.holidays.0: '2024-02-30' is not a calendar day"]);
    expect(issuesOf(validateJobSpecification(jobSpec({ failureCommand: { queue: 'a:b', message: {} } })))).toEqual([
      'failureCommand.queue: must be a queue name of letters, digits, . _ - (no :)',
    ]);
  });

  it('refuses a recurring job that can never fire on a day its calendar allows', () => {
    const spec = validateJobSpecification(jobSpec({ schedulingSpecification: '0 9 * * 6', calendar: { excludeWeekends: true } }));
    if (!spec.ok) throw new Error(spec.issues.join());
    expect(newJobDocument(spec.spec, 'x', new Date('2024-01-01T00:00:00Z'))).toEqual({
      ok: false,
      reason: "schedulingSpecification '0 9 * * 6' never fires on a day its calendar allows in UTC; change the cron expression or the calendar",
    });
  });
});
