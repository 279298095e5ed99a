import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_HELP, renderCommandHelp } from './command-help';

const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'cli.md'), 'utf8');

describe('the help of every command', () => {
  it('prints usage, options, environment and an example', () => {
    const help = COMMAND_HELP['cancel'];
    expect(help).toBeDefined();
    const text = renderCommandHelp(help!);
    expect(text).toMatch(/^Usage: sas cancel <processId\|orderId> /);
    expect(text).toContain('\nOptions:\n  --process-id ID ');
    expect(text).toContain('\nEnvironment: SAS_DASHBOARD_URL and SAS_DASHBOARD_TOKEN');
    expect(text).toContain("\nExample:\n  sas cancel o-1001 --reason 'customer withdrew'");
  });

  it.each(Object.entries(COMMAND_HELP))('of %s is on docs/cli.md: its usage, every option and its example', (name, help) => {
    expect(page).toContain(`### \`sas ${name}\``);
    for (const usage of help.usage) expect(page).toContain(`\n${usage}\n`);
    for (const [flag] of help.options) expect(page).toContain(`| \`${flag}\` |`);
    expect(page).toContain(`\n${help.example}\n`);
  });
});
