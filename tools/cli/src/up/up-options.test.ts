import { parseUpOptions } from './up-options';

describe('parseUpOptions', () => {
  it('takes one HTTP agent per --agent NAME=MAPPING and defaults to one scheduler and one supervisor', () => {
    expect(parseUpOptions({ workflows: 'w.json', agent: ['warehouse=./maps/warehouse.json', 'mail=m=1.json'] })).toEqual({
      workflowsFile: 'w.json',
      agents: [
        { name: 'warehouse', mappingFile: './maps/warehouse.json' },
        { name: 'mail', mappingFile: 'm=1.json' },
      ],
      schedulers: 1,
      supervisors: 1,
      logDir: undefined,
      dashboardPort: 0,
      sharedCore: true,
    });
  });

  it('runs submission, a scheduler and a supervisor in one process unless --separate-processes', () => {
    expect(parseUpOptions({}).sharedCore).toBe(true);
    expect(parseUpOptions({ 'separate-processes': true }).sharedCore).toBe(false);
  });

  it('refuses an --agent without a mapping, a name agents cannot have, or the same agent twice', () => {
    expect(() => parseUpOptions({ agent: ['warehouse'] })).toThrow("--agent takes NAME=MAPPING.json, NAME lower-case letters, digits and - (got 'warehouse')");
    expect(() => parseUpOptions({ agent: ['Ware=m.json'] })).toThrow("(got 'Ware=m.json')");
    expect(() => parseUpOptions({ agent: ['a=1.json', 'a=2.json'] })).toThrow('--agent a is given twice');
  });

  it('refuses counts and ports out of range, naming the option', () => {
    expect(parseUpOptions({ schedulers: '3', supervisors: '2', 'dashboard-port': '4000' })).toMatchObject({ schedulers: 3, supervisors: 2, dashboardPort: 4000 });
    expect(() => parseUpOptions({ schedulers: '0' })).toThrow("--schedulers must be a whole number from 1 to 16 (got '0')");
    expect(() => parseUpOptions({ supervisors: 'two' })).toThrow("--supervisors must be a whole number from 1 to 16 (got 'two')");
    expect(() => parseUpOptions({ 'dashboard-port': '70000' })).toThrow("--dashboard-port must be a port number, 0 for any free one (got '70000')");
  });
});
