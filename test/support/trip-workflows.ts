import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from '@sas/stack';
import { fastRoleEnv } from './test-workflows';
import type { UndoOf } from './ledger-checks';

/** How long the end-to-end trip waits for its `confirm` signal (the example's is a day). */
export const TRIP_TEST_TIMEOUT_MS = 10_000;
/** The end-to-end trip's cooling-off wait (the example's is a minute). */
const TRIP_TEST_COOLING_OFF_MS = 1_500;
/** Complete-by of the end-to-end trip's bookings and charge: long enough that a loaded machine's delays do not reach the threshold. */
const TRIP_TEST_COMPLETE_BY_MS = 4_000;

type Json = Record<string, unknown>;

/** The example's workflow file (examples/trip-booking/workflows.json), parsed. */
export function exampleTripWorkflows(): Json[] {
  return JSON.parse(readFileSync(join(findWorkspaceRoot(), 'examples/trip-booking/workflows.json'), 'utf8')) as Json[];
}

/**
 * The example's `trip-booking`, with the test's timings: the same entries, conditions and
 * policies, a {@link TRIP_TEST_TIMEOUT_MS} signal timeout, a {@link TRIP_TEST_COOLING_OFF_MS} wait.
 */
export function tripBookingForTest(): Json {
  const [trip] = exampleTripWorkflows();
  if (!trip) throw new Error('examples/trip-booking/workflows.json holds no workflow');
  const task = (s: Json): Json => ({ ...s, completeByMs: TRIP_TEST_COMPLETE_BY_MS });
  const steps = (trip['steps'] as Json[]).map((entry) => {
    if (Array.isArray(entry['parallel'])) return { ...entry, parallel: (entry['parallel'] as Json[]).map(task) };
    if (entry['signal']) return { ...entry, signal: { ...(entry['signal'] as Json), timeoutMs: TRIP_TEST_TIMEOUT_MS } };
    if (entry['wait']) return { ...entry, wait: { ms: TRIP_TEST_COOLING_OFF_MS } };
    return task(entry);
  });
  return { ...trip, steps };
}

/** Every task step of a workflow, group members included, in order. */
function taskSteps(workflow: Json): Json[] {
  return (workflow['steps'] as Json[]).flatMap((e) => (Array.isArray(e['parallel']) ? (e['parallel'] as Json[]) : e['agent'] !== undefined ? [e] : []));
}

/** The forward → undo pairs of a workflow's task steps, members included (`flight.book` → `flight.cancel`). */
export function tripUndoPairs(workflow: Json): UndoOf {
  const pairs = new Map<string, string>();
  for (const s of taskSteps(workflow)) {
    if (s['compensation'] !== null) pairs.set(`${String(s['agent'])}.${String(s['operation'])}`, `${String(s['agent'])}.${String(s['compensation'])}`);
  }
  return pairs;
}

/** fastRoleEnv with the test trip as the core services' WORKFLOWS_FILE. */
export function tripRoleEnv(): Partial<Record<string, NodeJS.ProcessEnv>> {
  const file = join(mkdtempSync(join(tmpdir(), 'sas-trip-')), 'workflows.json');
  writeFileSync(file, JSON.stringify([tripBookingForTest()], null, 2));
  const env = fastRoleEnv();
  return {
    ...env,
    submission: { ...env['submission'], WORKFLOWS_FILE: file },
    scheduler: { ...env['scheduler'], WORKFLOWS_FILE: file },
    supervisor: { ...env['supervisor'], WORKFLOWS_FILE: file },
  };
}
