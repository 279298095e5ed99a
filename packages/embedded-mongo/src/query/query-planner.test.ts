import { planQuery, type IndexPlan, type PlannableIndex } from './query-planner';

const claim: PlannableIndex = { name: 'claim', paths: ['state', 'notBefore'], directions: [1, 1], unique: false };
const sweep: PlannableIndex = { name: 'sweep', paths: ['state', 'completeBy'], directions: [1, 1], unique: false };
const recent: PlannableIndex = { name: 'recent', paths: ['updatedAt'], directions: [-1], unique: false };
const orderId: PlannableIndex = { name: 'orderId_unique', paths: ['orderId'], directions: [1], unique: true };
const ttl: PlannableIndex = { name: 'ttl', paths: ['deleteTime'], directions: [1], unique: false };
const processIndexes = [orderId, claim, sweep, recent, ttl];
const now = new Date('2025-01-01T00:00:00Z');

function indexPlan(plan: ReturnType<typeof planQuery>): IndexPlan {
  if (plan.kind !== 'index') throw new Error('expected an index plan, got a collection scan');
  return plan;
}

describe('planQuery', () => {
  it('answers the claim query from the claim index, in sort order, as one range', () => {
    const plan = indexPlan(planQuery({ state: 'Pending', notBefore: { $lte: now } }, [{ path: 'notBefore', direction: 1 }], processIndexes));
    expect(plan).toMatchObject({ index: 'claim', reverse: false, sortKeys: 1, tiePositions: [1] });
    expect(plan.ranges).toHaveLength(1);
    expect(plan.ranges[0]?.start.values[0]).toBe('Pending');
    expect(plan.ranges[0]?.end.values).toEqual(['Pending', now]);
  });

  it('answers the sweep from the sweep index with one range per state, sorting afterwards', () => {
    const plan = indexPlan(
      planQuery({ state: { $in: ['Processing', 'Compensating'] }, completeBy: { $lte: now } }, [{ path: 'completeBy', direction: 1 }], processIndexes),
    );
    expect(plan.index).toBe('sweep');
    expect(plan.ranges.map((r) => r.start.values[0])).toEqual(['Compensating', 'Processing']);
    expect(plan.sortKeys).toBe(0);
  });

  it('prefers a unique index pinned on all its fields', () => {
    expect(indexPlan(planQuery({ orderId: 'o-1', state: 'Pending' }, [], processIndexes)).index).toBe('orderId_unique');
  });

  it('reads a descending index backwards for an ascending sort and forwards for a descending one', () => {
    expect(indexPlan(planQuery({}, [{ path: 'updatedAt', direction: 1 }], [recent])).reverse).toBe(true);
    const plan = indexPlan(planQuery({}, [{ path: 'updatedAt', direction: -1 }, { path: '_id', direction: -1 }], [recent]));
    expect(plan).toMatchObject({ reverse: false, sortKeys: 1, tiePositions: [0] });
  });

  it('skips sort keys on fields pinned to one value', () => {
    const plan = indexPlan(planQuery({ state: 'Pending' }, [{ path: 'state', direction: -1 }, { path: 'notBefore', direction: -1 }], [claim]));
    expect(plan).toMatchObject({ reverse: true, sortKeys: 2, tiePositions: [1] });
  });

  it('does not deliver a sort whose directions disagree with the index', () => {
    const both: PlannableIndex = { name: 'ab', paths: ['a', 'b'], directions: [1, 1], unique: false };
    expect(indexPlan(planQuery({}, [{ path: 'a', direction: 1 }, { path: 'b', direction: -1 }], [both])).sortKeys).toBe(1);
  });

  it('prefers an index that pins a real value over one pinned only to null', () => {
    const byProcess: PlannableIndex = { name: 'byProcess', paths: ['processId', 'at'], directions: [1, 1], unique: false };
    expect(indexPlan(planQuery({ processId: 'p', deleteTime: null }, [], [ttl, byProcess])).index).toBe('byProcess');
  });

  it("answers the job runner's due query and a job's status history from the job indexes", () => {
    const due: PlannableIndex = { name: 'due', paths: ['status', 'nextFireTime'], directions: [1, 1], unique: false };
    const byRequestor: PlannableIndex = { name: 'byRequestor', paths: ['jobRequestor'], directions: [1], unique: false };
    const key: PlannableIndex = { name: 'jobSpecificationKey_unique', paths: ['jobSpecificationKey'], directions: [1], unique: true };
    const jobs = [key, due, byRequestor, ttl];
    const findDue = indexPlan(planQuery({ status: 'SCHEDULED', nextFireTime: { $lte: now }, inFlight: null }, [{ path: 'nextFireTime', direction: 1 }], jobs));
    expect(findDue).toMatchObject({ index: 'due', sortKeys: 1 });
    expect(indexPlan(planQuery({ jobSpecificationKey: 'k', status: 'SCHEDULED' }, [], jobs)).index).toBe('jobSpecificationKey_unique');
    const byJob: PlannableIndex = { name: 'byJob', paths: ['jobSpecificationId', 'updatedTime'], directions: [1, 1], unique: false };
    const history = indexPlan(
      planQuery({ jobSpecificationId: 'j' }, [{ path: 'updatedTime', direction: 1 }, { path: 'revision', direction: 1 }], [byJob, ttl]),
    );
    expect(history).toMatchObject({ index: 'byJob', sortKeys: 1, tiePositions: [1] });
  });

  it('scans when no index bounds the filter or delivers the sort', () => {
    expect(planQuery({ workflow: 'w' }, [], processIndexes)).toEqual({ kind: 'scan' });
    expect(planQuery({ state: { $ne: 'Pending' } }, [], processIndexes)).toEqual({ kind: 'scan' });
    expect(planQuery({ $or: [{ state: 'Pending' }] }, [], processIndexes)).toEqual({ kind: 'scan' });
    expect(planQuery({ state: ['a'] }, [], processIndexes)).toEqual({ kind: 'scan' });
    expect(planQuery(undefined, [], processIndexes)).toEqual({ kind: 'scan' });
  });

  it('plans no range at all for contradictory conditions', () => {
    expect(indexPlan(planQuery({ deleteTime: { $gt: now, $lt: now } }, [], [ttl])).ranges).toEqual([]);
    expect(indexPlan(planQuery({ deleteTime: { $gt: 5, $lt: 'a' } }, [], [ttl])).ranges).toEqual([]);
    expect(indexPlan(planQuery({ deleteTime: { $in: [] } }, [], [ttl])).ranges).toEqual([]);
  });
});
