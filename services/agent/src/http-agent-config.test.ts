import { ConfigError, loadConfig } from '@sas/runtime';
import { HttpAgentConfig } from './http-agent-config';

describe('HttpAgentConfig', () => {
  it('needs only AGENT and points at the local remote simulator by default', () => {
    const config = loadConfig(HttpAgentConfig, { AGENT: 'payment' });

    expect(config).toMatchObject({
      AGENT: 'payment',
      REMOTE_URL: 'http://127.0.0.1:4100',
      REMOTE_CALL_TIMEOUT_MS: 10_000,
      CONCURRENCY: 16,
    });
  });

  it('says AGENT is required and what to set it to', () => {
    expect(() => loadConfig(HttpAgentConfig, {})).toThrow(ConfigError);
    expect(() => loadConfig(HttpAgentConfig, {})).toThrow(
      'AGENT: AGENT is required: set it to the remote service this agent serves, e.g. payment',
    );
  });

  it('rejects an AGENT that cannot be part of a queue name', () => {
    expect(() => loadConfig(HttpAgentConfig, { AGENT: 'Pay:ment' })).toThrow(
      "AGENT: AGENT must be lower-case letters, digits and -, starting with a letter (several agents joined by +, e.g. inventory+payment) (got 'Pay:ment')",
    );
  });

  it('takes several agents joined by + for one process, each a valid name, none twice (decision 131)', () => {
    expect(loadConfig(HttpAgentConfig, { AGENT: 'inventory+payment+shipping' }).AGENT.split('+')).toEqual(['inventory', 'payment', 'shipping']);
    expect(() => loadConfig(HttpAgentConfig, { AGENT: 'inventory+' })).toThrow(/AGENT must be lower-case letters/);
    expect(() => loadConfig(HttpAgentConfig, { AGENT: 'inventory+Pay' })).toThrow(/AGENT must be lower-case letters/);
    expect(() => loadConfig(HttpAgentConfig, { AGENT: 'payment+payment' })).toThrow('AGENT names an agent twice');
  });

  it('keeps the library’s rule on the backoff bounds', () => {
    expect(() =>
      loadConfig(HttpAgentConfig, { AGENT: 'payment', RETRY_INITIAL_BACKOFF_MS: '500', RETRY_MAX_BACKOFF_MS: '100' }),
    ).toThrow('RETRY_MAX_BACKOFF_MS (100) must be at least RETRY_INITIAL_BACKOFF_MS (500)');
  });
});
