import { chooseOperatorPath, cliPrincipal } from './operator-path';

const me = { user: 'alice', host: 'ops-box' };

describe('the path of a CLI write', () => {
  it('goes through the dashboard API when both variables are set, without a trailing slash', () => {
    expect(chooseOperatorPath({ SAS_DASHBOARD_URL: 'https://dash.example.com/', SAS_DASHBOARD_TOKEN: 't0k' }, undefined, me)).toEqual({ kind: 'api', baseUrl: 'https://dash.example.com', token: 't0k' });
  });

  it('goes direct, named cli:<user>@<host>, when neither is set', () => {
    expect(chooseOperatorPath({}, undefined, me)).toEqual({ kind: 'direct', principal: 'cli:alice@ops-box' });
    expect(cliPrincipal(me)).toBe('cli:alice@ops-box');
  });

  it('refuses half a configuration rather than falling back to the unattributable path', () => {
    expect(() => chooseOperatorPath({ SAS_DASHBOARD_URL: 'http://127.0.0.1:3000' }, undefined, me)).toThrow('SAS_DASHBOARD_URL is set but SAS_DASHBOARD_TOKEN is not: set both');
    expect(() => chooseOperatorPath({ SAS_DASHBOARD_TOKEN: 'x' }, undefined, me)).toThrow('SAS_DASHBOARD_TOKEN is set but SAS_DASHBOARD_URL is not');
    expect(() => chooseOperatorPath({ SAS_DASHBOARD_URL: 'dash:3000', SAS_DASHBOARD_TOKEN: 'x' }, undefined, me)).toThrow("SAS_DASHBOARD_URL must be http or https (got 'dash:3000')");
    expect(() => chooseOperatorPath({ SAS_DASHBOARD_URL: 'not a url', SAS_DASHBOARD_TOKEN: 'x' }, undefined, me)).toThrow('SAS_DASHBOARD_URL is not a URL');
  });

  it('refuses a typed --by on either path, naming who the history will say', () => {
    expect(() => chooseOperatorPath({}, 'bob', me)).toThrow(/^--by is no longer accepted: .*cli:alice@ops-box .*put anything else to say into --reason$/);
    expect(() => chooseOperatorPath({ SAS_DASHBOARD_URL: 'http://d', SAS_DASHBOARD_TOKEN: 't' }, 'bob', me)).toThrow("the dashboard token's principal");
  });
});
