import { Script } from 'node:vm';
import { AGENT_PANEL_SCRIPT } from './agent-panel-script';
import { renderDashboardPage } from './dashboard-page';

describe('the remote services panel of the page', () => {
  it('is valid JavaScript that never writes HTML from data and only talks to this server', () => {
    expect(() => new Script(AGENT_PANEL_SCRIPT, { filename: 'agent-panel-script.js' })).not.toThrow();
    expect(AGENT_PANEL_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(AGENT_PANEL_SCRIPT).not.toMatch(/\/\/[a-z0-9]/i);
  });

  it('is in the page, inside its one nonce-tagged script, with a place for the agents', () => {
    const page = renderDashboardPage({ nonce: 'n0nce', instanceId: 'd', queuePrefix: 'sas' });
    expect(page).toMatch(/<h2>Remote services<\/h2>[\s\S]*<div id="agents">/);
    expect(page).toContain(AGENT_PANEL_SCRIPT);
    expect(page.match(/<script/g)).toHaveLength(1);
  });
});
