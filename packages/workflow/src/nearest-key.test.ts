import { nearestKey } from './nearest-key';

const WORKFLOW_KEYS = [
  'name',
  'version',
  'steps',
  'failureThreshold',
  'onThreshold',
  'onPermanentFailure',
  'retentionMs',
  'parking',
];

describe('nearestKey', () => {
  it('finds the key a typo meant: a dropped, swapped or wrong letter, or another case', () => {
    expect(nearestKey('failureTreshold', WORKFLOW_KEYS)).toBe('failureThreshold');
    expect(nearestKey('retentionMS', WORKFLOW_KEYS)).toBe('retentionMs');
    expect(nearestKey('verison', WORKFLOW_KEYS)).toBe('version');
    expect(nearestKey('onTreshold', WORKFLOW_KEYS)).toBe('onThreshold');
    expect(nearestKey('step', WORKFLOW_KEYS)).toBe('steps');
  });

  it('suggests nothing for a key that is no typo of a known one', () => {
    expect(nearestKey('owner', WORKFLOW_KEYS)).toBeUndefined();
    expect(nearestKey('description', WORKFLOW_KEYS)).toBeUndefined();
    expect(nearestKey('x', WORKFLOW_KEYS)).toBeUndefined();
  });
});
