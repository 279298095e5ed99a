import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from '@sas/stack';
import { exampleTripWorkflows } from '../support/trip-workflows';

/**
 * The workflow file of docs/flows.md (examples/trip-booking/workflows.json) through the real
 * `sas workflows check`, as the page tells a reader to run it; and the same file with one CEL
 * condition broken, which the check must refuse naming the entry.
 */
describe('the trip-booking workflow file of docs/flows.md', () => {
  const root = findWorkspaceRoot();
  const sas = (args: string[]): Promise<{ code: number; out: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [join(root, 'tools/cli/dist/main.js'), ...args], { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
      });
    });

  it('passes sas workflows check', async () => {
    const checked = await sas(['workflows', 'check', join(root, 'examples/trip-booking/workflows.json')]);
    expect(checked).toEqual({ code: 0, out: expect.stringContaining('trip-booking') as unknown as string });
  });

  it('is refused with the path of a condition that does not parse', async () => {
    const [trip] = exampleTripWorkflows();
    const steps = (trip?.['steps'] as Record<string, unknown>[]).map((e) => (e['name'] === 'book-day-flight' ? { ...e, condition: 'payload.dayTrip &&' } : e));
    const file = join(mkdtempSync(join(tmpdir(), 'sas-trip-check-')), 'workflows.json');
    writeFileSync(file, JSON.stringify([{ ...trip, steps }]));
    const checked = await sas(['workflows', 'check', file]);
    expect(checked.code).toBe(1);
    expect(checked.out).toMatch(/steps\[1\]\.condition/);
  });

  // docs/flows.md: "a group of one member, a name used twice are each named".
  it('is refused for a group of one member and for a step name used twice, naming each', async () => {
    const [trip] = exampleTripWorkflows();
    const steps = trip?.['steps'] as Record<string, unknown>[];
    const group = steps[0] as { parallel: unknown[] };
    const broken = [
      { ...trip, steps: [{ ...group, parallel: group.parallel.slice(0, 1) }, ...steps.slice(1)] },
      { ...trip, steps: [group, { ...steps[1], name: 'book-flight' }, ...steps.slice(2)] },
    ];
    const file = join(mkdtempSync(join(tmpdir(), 'sas-trip-check-')), 'workflows.json');
    writeFileSync(file, JSON.stringify(broken));
    const checked = await sas(['workflows', 'check', file]);
    expect(checked.code).toBe(1);
    expect(checked.out).toContain('workflows[0].steps[0].parallel: a parallel group has at least 2 members');
    expect(checked.out).toContain("workflows[1]: step name 'book-flight' is used twice");
  });
});
