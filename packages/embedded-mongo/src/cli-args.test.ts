import { HELP, parseCliArgs, wantsHelp } from './cli-args';

describe('parseCliArgs', () => {
  it('reads port, host and TTL interval in both flag forms', () => {
    expect(parseCliArgs(['--port', '27018', '--host=0.0.0.0', '--ttl-interval-ms', '250'])).toEqual({
      port: 27018,
      host: '0.0.0.0',
      ttlMonitorIntervalMs: 250,
    });
    expect(parseCliArgs([])).toEqual({});
  });

  it('reads the replica set name', () => {
    expect(parseCliArgs(['--repl-set', 'rs0'])).toEqual({ replicaSet: 'rs0' });
    expect(() => parseCliArgs(['--repl-set='])).toThrow('--repl-set needs a replica set name');
  });

  it('reads the data folder and the sync mode', () => {
    expect(parseCliArgs(['--data-dir', '.sas/mongo', '--sync=full'])).toEqual({ dataDir: '.sas/mongo', sync: 'full' });
    expect(() => parseCliArgs(['--data-dir='])).toThrow('--data-dir needs a folder');
    expect(() => parseCliArgs(['--sync', 'always'])).toThrow("--sync needs 'normal' or 'full' (got 'always')");
  });

  it('names the bad argument and shows the usage', () => {
    expect(() => parseCliArgs(['--port', 'abc'])).toThrow(
      "--port needs an integer from 0 to 65535 (got 'abc'); usage:",
    );
    expect(() => parseCliArgs(['--verbose'])).toThrow("unknown argument '--verbose'");
    expect(() => parseCliArgs(['--ttl-interval-ms'])).toThrow('got nothing');
  });

  it('asks for the help with --help or -h anywhere, whatever else is given', () => {
    expect(wantsHelp(['--help'])).toBe(true);
    expect(wantsHelp(['--port', 'abc', '-h'])).toBe(true);
    expect(wantsHelp(['--port', '0'])).toBe(false);
  });

  it('documents every option it parses', () => {
    for (const flag of ['--port', '--host', '--data-dir', '--sync', '--ttl-interval-ms', '--repl-set', '--help'])
      expect(HELP).toContain(`\n  ${flag}`);
    expect(HELP).toContain('keeps everything in memory');
    expect(HELP).toContain('DIR/embedded-mongo.sqlite');
  });
});
