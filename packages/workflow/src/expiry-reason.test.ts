import { expiryReason, liveAgentsOf } from './expiry-reason';

describe('expiryReason', () => {
  const step = { agent: 'payout', operation: 'disburse' };
  const serving = (operations: string[], servesOtherOperations = false) => ({ operations, servesOtherOperations });

  it('says only that complete-by passed when the live agents are unknown or serve the step', () => {
    expect(expiryReason(step, undefined)).toBe('complete-by passed');
    expect(expiryReason(step, { payout: serving(['disburse', 'claw-back']) })).toBe('complete-by passed');
  });

  it('counts an agent with a catch-all handler (an HTTP mapping\'s *) as serving every operation', () => {
    expect(expiryReason(step, { payout: serving([], true) })).toBe('complete-by passed');
  });

  it('says no live instance of the agent is registered when none is', () => {
    expect(expiryReason(step, { kyc: serving(['screen']) })).toBe("complete-by passed; no live instance of agent 'payout' is registered: start it, or fix the agent's name in the workflow");
  });

  it('says the live agent does not serve the operation, naming what it serves', () => {
    expect(expiryReason(step, { payout: serving(['disburce']) })).toBe("complete-by passed; agent 'payout' (live) does not serve 'disburse' (it serves disburce): fix the name in the workflow or the agent");
  });

  it('joins what several live instances of an agent serve', () => {
    expect(
      liveAgentsOf([
        { agent: 'payout', operations: ['disburse'], servesOtherOperations: false },
        { agent: 'payout', operations: ['disburse', 'claw-back'], servesOtherOperations: false },
        { agent: 'mail', operations: [], servesOtherOperations: true },
      ]),
    ).toEqual({ payout: serving(['disburse', 'claw-back']), mail: serving([], true) });
  });
});
