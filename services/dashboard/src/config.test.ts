import { ConfigError, loadConfig } from '@sas/runtime';
import { DashboardConfig } from './config';

describe('DashboardConfig', () => {
  it('defaults to port 4000 on loopback, the three built-in agents and a 15 s command timeout', () => {
    const config = loadConfig(DashboardConfig, {});
    expect(config).toMatchObject({ PORT: 4000, HOST: '127.0.0.1', AGENTS: ['inventory', 'payment', 'shipping'], COMMAND_TIMEOUT_MS: 15_000 });
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
