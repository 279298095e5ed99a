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
      dataDir: '.sas',
    });
  });

  it('keeps its state in ./.sas unless --data-dir names another folder; --in-memory keeps none', () => {
    expect(parseUpOptions({ 'data-dir': '/var/lib/sas' }).dataDir).toBe('/var/lib/sas');
    expect(parseUpOptions({ 'in-memory': true }).dataDir).toBeUndefined();
    expect(() => parseUpOptions({ 'in-memory': true, 'data-dir': 'd' })).toThrow('--in-memory keeps nothing on disk and --data-dir keeps everything there: give one of them');
  });

  it('gives an --agent-env NAME:KEY=VALUE to that agent alone', () => {
    const options = parseUpOptions({ agent: ['payout=p.json', 'kyc=k.json'], 'agent-env': ['payout:CONCURRENCY=4', 'payout:LOG_LEVEL=debug'] });
    expect(options.agents).toEqual([
      { name: 'payout', mappingFile: 'p.json', env: { CONCURRENCY: '4', LOG_LEVEL: 'debug' } },
      { name: 'kyc', mappingFile: 'k.json' },
    ]);
    expect(() => parseUpOptions({ agent: ['payout=p.json'], 'agent-env': ['payout=CONCURRENCY=4'] })).toThrow("--agent-env takes NAME:KEY=VALUE, e.g. payout:CONCURRENCY=4 (got 'payout=CONCURRENCY=4')");
    expect(() => parseUpOptions({ agent: ['payout=p.json'], 'agent-env': ['kyc:CONCURRENCY=4'] })).toThrow('--agent-env kyc:CONCURRENCY=4: no --agent kyc is given; name one of payout');
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
