import { ConfigError, loadConfig } from '@sas/runtime';
import { DashboardConfig } from './config';

/** The least environment the dashboard starts with: one operator token. */
const SIGNED = { DASHBOARD_TOKENS: 'operator:88dffa005779f707773ed334f70b069d' };

describe('DashboardConfig', () => {
  it('defaults to port 4000 on loopback, the three built-in agents and a 15 s command timeout', () => {
    const config = loadConfig(DashboardConfig, SIGNED);
    expect(config).toMatchObject({ PORT: 4000, HOST: '127.0.0.1', AGENTS: ['inventory', 'payment', 'shipping'], COMMAND_TIMEOUT_MS: 15_000 });
  });

  it('consumes alerts and keeps them 30 days unless told otherwise', () => {
    expect(loadConfig(DashboardConfig, SIGNED)).toMatchObject({ ALERTS_CONSUME: true, ALERTS_RETENTION_MS: 30 * 24 * 60 * 60 * 1000 });
    expect(loadConfig(DashboardConfig, { ...SIGNED, ALERTS_CONSUME: 'false', ALERTS_RETENTION_MS: '3600000' })).toMatchObject({ ALERTS_CONSUME: false, ALERTS_RETENTION_MS: 3_600_000 });
  });

  it('refuses an ALERTS_CONSUME that is not true or false, and a retention that is not a positive number of ms', () => {
    expect(() => loadConfig(DashboardConfig, { ...SIGNED, ALERTS_CONSUME: 'yes' })).toThrow(/ALERTS_CONSUME must be 'true' or 'false'/);
    expect(() => loadConfig(DashboardConfig, { ...SIGNED, ALERTS_RETENTION_MS: '0' })).toThrow(/ALERTS_RETENTION_MS: .*\(got '0'\)/);
  });

  it('reads a comma list of agents, trimming spaces and dropping empty entries', () => {
    expect(loadConfig(DashboardConfig, { ...SIGNED, AGENTS: ' payment, fraud-check ,,' }).AGENTS).toEqual(['payment', 'fraud-check']);
  });

  it('refuses an agent name that cannot be part of a queue name, naming the variable', () => {
    expect(() => loadConfig(DashboardConfig, { ...SIGNED, AGENTS: 'payment,bad:name' })).toThrow(ConfigError);
    expect(() => loadConfig(DashboardConfig, { ...SIGNED, AGENTS: 'payment,bad:name' })).toThrow(/AGENTS.*letters, digits/);
  });

  it('refuses an empty agent list with what to write instead', () => {
    expect(() => loadConfig(DashboardConfig, { ...SIGNED, AGENTS: ' , ' })).toThrow(/AGENTS must name at least one agent/);
  });

  it('refuses a port that is not a port, showing what it got', () => {
    expect(() => loadConfig(DashboardConfig, { ...SIGNED, PORT: 'eighty' })).toThrow(/PORT: .*\(got 'eighty'\)/);
  });

  describe('access control', () => {
    it('refuses to start without tokens, saying how to set them or to turn login off', () => {
      expect(() => loadConfig(DashboardConfig, {})).toThrow(ConfigError);
      expect(() => loadConfig(DashboardConfig, { DASHBOARD_TOKENS: ' , ' })).toThrow(
        /DASHBOARD_TOKENS: no dashboard tokens are configured; set DASHBOARD_TOKENS=operator:<token>\[,viewer:<token>\] \(each token of at least 128 bits, e.g. from openssl rand -base64 32\), or DASHBOARD_AUTH=off to serve without login/,
      );
    });

    it('reads role:token and role:name:token entries', () => {
      const config = loadConfig(DashboardConfig, { DASHBOARD_TOKENS: 'viewer:88dffa005779f707773ed334f70b069d, operator:alice:5302ab97be048ab1333192610bb203f1' });
      expect(config.DASHBOARD_AUTH).toBe('on');
      expect(config.DASHBOARD_TOKENS).toEqual([
        { role: 'viewer', token: '88dffa005779f707773ed334f70b069d' },
        { role: 'operator', name: 'alice', token: '5302ab97be048ab1333192610bb203f1' },
      ]);
    });

    it('refuses a token carrying less than 128 bits, naming the variable and how to make one, but not repeating the token', () => {
      const load = (): unknown => loadConfig(DashboardConfig, { DASHBOARD_TOKENS: 'operator:88dffa005779f707773ed334f70b069d,viewer:short-secret' });
      expect(load).toThrow(/DASHBOARD_TOKENS\.1: the viewer token is too weak: it is 12 characters carrying at most 57 bits; a token needs at least 128 bits .*generate one with: openssl rand -base64 32/);
      expect(load).not.toThrow(/short-secret/);
    });

    it.each([
      ['the deployment example’s placeholder', 'CHANGE-ME-to-a-random-token', /the deployment examples' placeholder/],
      ['a name made of dictionary words', 'my-sas-dashboard-token-for-prod', /made mostly of dictionary words/],
      ['one character repeated', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', /zxcvbn/],
      ['a 16-character password', 'password12345678', /carrying at most 82 bits/],
    ])('refuses %s long enough to pass a length check', (_what, token, why) => {
      const load = (): unknown => loadConfig(DashboardConfig, { DASHBOARD_TOKENS: `operator:alice:${token}` });
      expect(load).toThrow(/DASHBOARD_TOKENS\.0: the operator \(alice\) token is too weak/);
      expect(load).toThrow(why);
      expect(load).toThrow(/generate one with: openssl rand -base64 32/);
      expect(load).not.toThrow(token);
    });

    it('accepts what openssl rand -hex 16 and randomBytes(16) base64url make', () => {
      expect(loadConfig(DashboardConfig, { DASHBOARD_TOKENS: 'operator:0edafc3bb62b02bb7e11b087ea4218f5,viewer:Xb3F0-q9sLz_T1vKmW8aPe' }).DASHBOARD_TOKENS).toHaveLength(2);
    });

    it('limits failed credentials to 20 per 10 minutes, believes no proxy and keeps audit entries 90 days unless told otherwise', () => {
      expect(loadConfig(DashboardConfig, SIGNED)).toMatchObject({ DASHBOARD_AUTH_FAILURES: 20, DASHBOARD_AUTH_WINDOW_MS: 600_000, DASHBOARD_AUTH_BLOCK_MS: 900_000, DASHBOARD_TRUST_PROXY: false, AUDIT_RETENTION_MS: 90 * 24 * 3_600_000 });
      expect(loadConfig(DashboardConfig, { ...SIGNED, DASHBOARD_TRUST_PROXY: '1' }).DASHBOARD_TRUST_PROXY).toBe(1);
      expect(loadConfig(DashboardConfig, { ...SIGNED, DASHBOARD_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).DASHBOARD_TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
      expect(() => loadConfig(DashboardConfig, { ...SIGNED, AUDIT_RETENTION_MS: '10' })).toThrow(/AUDIT_RETENTION_MS must be at least 60000/);
    });

    it('refuses an entry without a known role', () => {
      expect(() => loadConfig(DashboardConfig, { DASHBOARD_TOKENS: 'admin:88dffa005779f707773ed334f70b069d' })).toThrow(/must be role:token or role:name:token with role viewer or operator/);
    });

    it('serves without login only when DASHBOARD_AUTH=off is said, and not with tokens as well', () => {
      expect(loadConfig(DashboardConfig, { DASHBOARD_AUTH: 'off' })).toMatchObject({ DASHBOARD_AUTH: 'off', DASHBOARD_TOKENS: [] });
      expect(() => loadConfig(DashboardConfig, { ...SIGNED, DASHBOARD_AUTH: 'off' })).toThrow(/DASHBOARD_AUTH=off but DASHBOARD_TOKENS is set; unset one of them/);
    });
  });
});
