import type { ProcessDocument } from '@sas/contracts';
import { resolveProcess, type ProcessLookup } from './resolve-process';

/** A lookup over a few processes, each only its id and orderId (all resolveProcess reads). */
function lookupOf(...docs: { _id: string; orderId: string }[]): ProcessLookup {
  const all = docs as unknown as ProcessDocument[];
  return {
    get: (id) => Promise.resolve(all.find((d) => d._id === id) ?? null),
    getByOrderId: (orderId) => Promise.resolve(all.find((d) => d.orderId === orderId) ?? null),
  };
}

const where = 'database sas';

describe('resolveProcess', () => {
  const p1 = { _id: 'p-1', orderId: 'o-1' };
  const clash = { _id: 'p-2', orderId: 'p-1' };

  it('finds a process by its id or by its orderId and says which matched', async () => {
    await expect(resolveProcess(lookupOf(p1), 'p-1', where)).resolves.toMatchObject({ found: true, matchedBy: 'processId', line: 'matched process id p-1 (order o-1)' });
    await expect(resolveProcess(lookupOf(p1), 'o-1', where)).resolves.toMatchObject({ found: true, matchedBy: 'orderId', line: 'matched orderId o-1 → process p-1' });
  });

  it('takes a process whose id is its own orderId as one match', async () => {
    await expect(resolveProcess(lookupOf({ _id: 'same', orderId: 'same' }), 'same', where)).resolves.toMatchObject({ found: true, matchedBy: 'processId' });
  });

  it("refuses a text that is one process's id and another's orderId, saying how to choose", async () => {
    await expect(resolveProcess(lookupOf(p1, clash), 'p-1', where)).resolves.toEqual({
      found: false,
      message: "'p-1' is ambiguous: it is the process id of p-1 (order o-1) and the orderId of process p-2; say which with --process-id p-1 or --order-id p-1",
    });
  });

  it('resolves the ambiguous text when told which kind it is', async () => {
    await expect(resolveProcess(lookupOf(p1, clash), 'p-1', where, 'processId')).resolves.toMatchObject({ found: true, doc: p1 });
    await expect(resolveProcess(lookupOf(p1, clash), 'p-1', where, 'orderId')).resolves.toMatchObject({ found: true, doc: clash });
  });

  it('says clearly when neither matches, and what was looked for', async () => {
    await expect(resolveProcess(lookupOf(p1), 'nope', where)).resolves.toEqual({
      found: false,
      message: "no process nope: no process has the process id or orderId 'nope' in database sas; check it (sas processes lists them), or it was removed after its retention",
    });
    await expect(resolveProcess(lookupOf(p1), 'o-1', where, 'processId')).resolves.toMatchObject({ found: false, message: expect.stringContaining("the process id 'o-1'") as unknown });
  });
});
