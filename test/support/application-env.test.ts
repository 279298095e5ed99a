import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { applicationEnv } from './local-registry';

describe('applicationEnv', () => {
  it('runs an application\'s node and npm on the Node the tests run on, with no workspace .bin on PATH', () => {
    const env = applicationEnv();
    // Through PATH, as npm's and sas's `#!/usr/bin/env node` resolve it; npm says which Node runs it.
    const node = spawnSync('node', ['-p', 'process.version'], { env, encoding: 'utf8' });
    const npm = spawnSync('npm', ['version', '--json'], { env, cwd: tmpdir(), encoding: 'utf8' });
    const npmNode = (JSON.parse(npm.stdout || '{}') as { node?: string }).node;
    expect({ node: node.stdout.trim(), npm: `v${npmNode}` }).toEqual({ node: process.version, npm: process.version });
    expect((env['PATH'] ?? '').split(':').filter((dir) => dir.includes('node_modules/.bin'))).toEqual([]);
  });
});
