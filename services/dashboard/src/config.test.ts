import { ConfigError, loadConfig } from '@sas/runtime';
import { DashboardConfig } from './config';

describe('DashboardConfig', () => {
  it('defaults to port 4000 on loopback, the three built-in agents and a 15 s command timeout', () => {
    const config = loadConfig(DashboardConfig, {});
    expect(config).toMatchObject({ PORT: 4000, HOST: '127.0.0.1', AGENTS: ['inventory', 'payment', 'shipping'], COMMAND_TIMEOUT_MS: 15_000 });
  });

  it('consumes alerts and keeps them 30 days unless told otherwise', () => {
    expect(loadConfig(DashboardConfig, {})).toMatchObject({ ALERTS_CONSUME: true, ALERTS_RETENTION_MS: 30 * 24 * 60 * 60 * 1000 });
    expect(loadConfig(DashboardConfig, { ALERTS_CONSUME: 'false', ALERTS_RETENTION_MS: '3600000' })).toMatchObject({ ALERTS_CONSUME: false, ALERTS_RETENTION_MS: 3_600_000 });
  });

  it('refuses an ALERTS_CONSUME that is not true or false, and a retention that is not a positive number of ms', () => {
    expect(() => loadConfig(DashboardConfig, { ALERTS_CONSUME: 'yes' })).toThrow(/ALERTS_CONSUME must be 'true' or 'false'/);
    expect(() => loadConfig(DashboardConfig, { ALERTS_RETENTION_MS: '0' })).toThrow(/ALERTS_RETENTION_MS: .*\(got '0'\)/);
  });

  it('reads a comma list of agents, trimming spaces and dropping empty entries', () => {
    expect(loadConfig(DashboardConfig, { AGENTS: ' payment, fraud-check ,,' }).AGENTS).toEqual(['payment', 'fraud-check']);
  });

  it('refuses an agent name that cannot be part of a queue name, naming the variable', () => {
    expect(() => loadConfig(DashboardConfig, { AGENTS: 'payment,bad:name' })).toThrow(ConfigError);
    expect(() => loadConfig(DashboardConfig, { AGENTS: 'payment,bad:name' })).toThrow(/AGENTS.*letters, digits/);
  });

  it('refuses an empty agent list with what to write instead', () => {
    expect(() => loadConfig(DashboardConfig, { AGENTS: ' , ' })).toThrow(/AGENTS must name at least one agent/);
  });

  it('refuses a port that is not a port, showing what it got', () => {
    expect(() => loadConfig(DashboardConfig, { PORT: 'eighty' })).toThrow(/PORT: .*\(got 'eighty'\)/);
  });
});
