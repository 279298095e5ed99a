import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HttpMapping, remoteSimMapping } from '@sas/http-agent';
import { serviceNodeOptions } from '@sas/stack';
import { loadWorkflows } from '@sas/workflow';
import { copySources, dockerIgnoreMatcher, readDockerfile } from './dockerfile-reader';
import { isYamlMap, type YamlMap } from './yaml-document';
import {
  ROOT,
  declaredEnv,
  durationMs,
  mapAt,
  readText,
  readYaml,
  remoteServiceNames,
  runnableServices,
  shutdownTimeoutMs,
  workspacePackageDirs,
} from './workspace-facts';

/**
 * docker-compose.yml and deploy/Dockerfile checked against the workspace. There is no Docker
 * engine on the build machines, so these checks are what keeps the files honest.
 */

const compose = readYaml('docker-compose.yml');
const services = mapAt(compose, 'services', 'docker-compose.yml');

/** Compose services built from our Dockerfile, with the directory their SERVICE arg names. */
const appServices = Object.entries(services).flatMap(([name, spec]) => {
  const args = isYamlMap(spec) && isYamlMap(spec['build']) ? spec['build']['args'] : undefined;
  const dir = isYamlMap(args) ? args['SERVICE'] : undefined;
  return isYamlMap(spec) && typeof dir === 'string' ? [{ name, dir, spec }] : [];
});

function environmentOf(spec: YamlMap): YamlMap {
  return isYamlMap(spec['environment']) ? spec['environment'] : {};
}

/**
 * Services published on a loopback host port, so they run once: remote-sim (its effect ledger is in
 * memory; faults are injected from the host) and the dashboard (opened in a browser). Every other
 * app service must scale.
 */
const PUBLISHED = new Set(['remote-sim', 'dashboard']);

/**
 * The host file a container reads at `path`, from a short-syntax bind mount `SOURCE:TARGET[:ro]`
 * whose source may be `${VAR:-default}` (compose's interpolation): the default, relative to the
 * repository, and the variable that replaces it.
 */
function mountedHostFile(spec: YamlMap, path: string): { source: string; variable?: string; readOnly: boolean } | { problem: string } {
  const volumes = Array.isArray(spec['volumes']) ? spec['volumes'].map(String) : [];
  const entry = volumes.map((v) => /^(\$\{(\w+):-([^}]+)\}|[^:]+):([^:]+)(?::(ro|rw))?$/.exec(v)).find((m) => m?.[4] === path);
  if (!entry) return { problem: `no volume is mounted at ${path} (volumes: ${JSON.stringify(volumes)})` };
  const source = entry[3] ?? entry[1] ?? '';
  return { source, ...(entry[2] ? { variable: entry[2] } : {}), readOnly: entry[5] === 'ro' };
}

describe('docker-compose.yml', () => {
  it('runs every service that has a src/main.ts, and every SERVICE build arg names one', () => {
    const built = new Set(appServices.map((s) => s.dir));
    const missing = runnableServices()
      .filter((dir) => !built.has(dir))
      .map((dir) => `services/${dir} has src/main.ts but no compose service builds it (build.args.SERVICE: ${dir})`);
    const unknown = appServices
      .filter((s) => !existsSync(join(ROOT, 'services', s.dir, 'src', 'main.ts')))
      .map((s) => `${s.name}: SERVICE ${s.dir} has no services/${s.dir}/src/main.ts`);
    expect([...missing, ...unknown]).toEqual([]);
  });

  it('builds every app service from deploy/Dockerfile with the repository as context', () => {
    for (const { name, spec } of appServices) {
      const build = mapAt(spec, 'build', name);
      expect({ name, context: build['context'], dockerfile: build['dockerfile'] }).toEqual({
        name,
        context: '.',
        dockerfile: 'deploy/Dockerfile',
      });
    }
  });

  it('has exactly one agent per remote service remote-sim knows, named agent-<service>', () => {
    const agents = appServices.filter((s) => s.dir === 'agent');
    const names = agents.map((a) => environmentOf(a.spec)['AGENT']);
    expect([...names].sort()).toEqual([...remoteServiceNames()].sort());
    for (const a of agents) expect(a.name).toBe(`agent-${String(environmentOf(a.spec)['AGENT'])}`);
  });

  it('sets only environment variables the service’s config schema declares', () => {
    const unknown = appServices.flatMap(({ name, dir, spec }) => {
      const declared = declaredEnv(dir);
      return Object.keys(environmentOf(spec))
        .filter((key) => !declared.has(key))
        .map((key) => `${name}: ${key} is not declared in services/${dir}/src/*config*.ts`);
    });
    expect(unknown).toEqual([]);
  });

  it('gives environment values as strings, so YAML never turns 0755 or yes into something else', () => {
    const nonStrings = appServices.flatMap(({ name, spec }) =>
      Object.entries(environmentOf(spec))
        .filter(([, v]) => typeof v !== 'string')
        .map(([k, v]) => `${name}: ${k}=${JSON.stringify(v)}`),
    );
    expect(nonStrings).toEqual([]);
  });

  it('points every URL at a compose service and every backend service at the same Redis, MongoDB and prefix', () => {
    const backends = appServices.filter((s) => declaredEnv(s.dir).has('REDIS_URL'));
    expect(backends.length).toBeGreaterThan(0);
    const shared = new Set<string>();
    for (const { name, spec } of backends) {
      const env = environmentOf(spec);
      shared.add(JSON.stringify([env['REDIS_URL'], env['MONGO_URL'], env['MONGO_DB'], env['QUEUE_PREFIX']]));
      for (const key of ['REDIS_URL', 'MONGO_URL', 'REMOTE_URL']) {
        const url = env[key];
        if (typeof url !== 'string') continue;
        const host = new URL(url).hostname;
        expect({ service: name, key, host, known: host in services }).toEqual({ service: name, key, host, known: true });
      }
    }
    expect(shared.size).toBe(1);
  });

  it('points agents at remote-sim on the port remote-sim listens on', () => {
    const sim = appServices.find((s) => s.dir === 'remote-sim');
    const port = sim ? environmentOf(sim.spec)['PORT'] : undefined;
    for (const a of appServices.filter((s) => s.dir === 'agent')) {
      expect(environmentOf(a.spec)['REMOTE_URL']).toBe(`http://${sim?.name ?? 'remote-sim'}:${String(port)}`);
    }
    // Its default bind address is loopback, which other containers cannot reach.
    expect(sim && environmentOf(sim.spec)['HOST']).toBe('0.0.0.0');
  });

  it('gives every app service a fixed port for the image’s health check, and Redis/MongoDB users wait for both', () => {
    for (const { name, spec } of appServices) {
      const env = environmentOf(spec);
      const checked = Number(env['PROBE_PORT']) > 0 || Number(env['PORT']) > 0;
      expect({ name, healthCheckHasAPort: checked }).toEqual({ name, healthCheckHasAPort: true });
    }
    for (const { name, spec } of appServices.filter((s) => declaredEnv(s.dir).has('REDIS_URL'))) {
      const deps = mapAt(spec, 'depends_on', name);
      for (const dep of ['redis', 'mongo']) expect({ name, dep, ...mapAt(deps, dep, name) }).toEqual({ name, dep, condition: 'service_healthy' });
    }
  });

  it('lets scalable services scale: no container_name, no fixed host port', () => {
    const blockers = appServices
      .filter((s) => !PUBLISHED.has(s.dir))
      .flatMap(({ name, spec }) => ['container_name', 'ports'].filter((k) => k in spec).map((k) => `${name} has ${k}`));
    expect(blockers).toEqual([]);
    for (const [name, spec] of Object.entries(services)) expect({ name, container_name: isYamlMap(spec) && 'container_name' in spec }).toEqual({ name, container_name: false });
    for (const { name, spec } of appServices.filter((s) => PUBLISHED.has(s.dir))) {
      const ports = Array.isArray(spec['ports']) ? spec['ports'] : [];
      expect({ name, ports: ports.filter((p) => !String(p).startsWith('127.0.0.1:')) }).toEqual({ name, ports: [] });
    }
  });

  it('shows in the dashboard exactly the agents compose runs', () => {
    const agents = appServices.filter((s) => s.dir === 'agent').map((a) => String(environmentOf(a.spec)['AGENT']));
    const lists = appServices.filter((s) => 'AGENTS' in environmentOf(s.spec));
    expect(lists.length).toBeGreaterThan(0);
    for (const { name, spec } of lists) {
      const listed = String(environmentOf(spec)['AGENTS']).split(',').map((a) => a.trim());
      expect({ name, agents: [...listed].sort() }).toEqual({ name, agents: [...agents].sort() });
    }
  });

  it('gives submission, scheduler and supervisor one workflows file, mounted read-only, that loads and names agents compose runs', () => {
    const core = appServices.filter((s) => ['submission', 'scheduler', 'supervisor'].includes(s.dir));
    expect(core.map((s) => s.dir).sort()).toEqual(['scheduler', 'submission', 'supervisor']);
    const mounts = core.map(({ name, spec }) => ({ name, ...mountedHostFile(spec, String(environmentOf(spec)['WORKFLOWS_FILE'])) }));
    expect(mounts.filter((m) => 'problem' in m || !m.readOnly || !existsSync(join(ROOT, m.source)))).toEqual([]);
    const files = new Set(mounts.map((m) => ('source' in m ? `${m.variable ?? ''}=${m.source}` : '')));
    expect(files.size).toBe(1);
    const source = 'source' in mounts[0]! ? mounts[0].source : '';
    const own = JSON.parse(readText(source)) as Array<{ name: string; steps: Array<{ agent: string }> }>;
    const registry = loadWorkflows(readText(source));
    expect(own.map((w) => registry.find(w.name)?.name)).toEqual(own.map((w) => w.name));
    const agents = appServices.filter((s) => s.dir === 'agent').map((a) => String(environmentOf(a.spec)['AGENT']));
    expect(own.flatMap((w) => w.steps.map((s) => s.agent)).filter((a) => !agents.includes(a))).toEqual([]);
  });

  it('gives every HTTP agent a mapping file of its own variable, mounted read-only, by default remote-sim’s dialect', () => {
    for (const { name, spec } of appServices.filter((s) => s.dir === 'agent')) {
      const agent = String(environmentOf(spec)['AGENT']);
      const mount = mountedHostFile(spec, String(environmentOf(spec)['AGENT_MAPPING_FILE']));
      if ('problem' in mount) throw new Error(`${name}: ${mount.problem}`);
      expect({ name, variable: mount.variable, readOnly: mount.readOnly }).toEqual({ name, variable: `SAS_${agent.toUpperCase()}_MAPPING_FILE`, readOnly: true });
      const parsed = HttpMapping.safeParse(JSON.parse(readText(mount.source)));
      expect({ name, mapping: parsed.success ? parsed.data : parsed.error.issues }).toEqual({ name, mapping: remoteSimMapping });
    }
  });

  it('runs two schedulers and two supervisors, and remote-sim once', () => {
    const replicas = (name: string): unknown => {
      const deploy = isYamlMap(services[name]) ? services[name]['deploy'] : undefined;
      return isYamlMap(deploy) ? deploy['replicas'] : undefined;
    };
    expect({ scheduler: replicas('scheduler'), supervisor: replicas('supervisor') }).toEqual({ scheduler: 2, supervisor: 2 });
    expect([undefined, 1]).toContain(replicas('remote-sim'));
  });

  it('restarts app services and gives them longer to stop than their own shutdown timeout', () => {
    for (const { name, spec } of appServices) {
      expect({ name, restart: spec['restart'] }).toEqual({ name, restart: 'unless-stopped' });
      const grace = durationMs(String(spec['stop_grace_period']));
      expect({ name, outlastsShutdown: grace > shutdownTimeoutMs() }).toEqual({ name, outlastsShutdown: true });
    }
  });

  it('runs Redis append-only with a one-second fsync and MongoDB as the replica set MONGO_URL names', () => {
    const commandOf = (name: string): string => {
      const spec = services[name];
      return isYamlMap(spec) && Array.isArray(spec['command']) ? spec['command'].join(' ') : '';
    };
    expect(commandOf('redis')).toContain('--appendonly yes --appendfsync everysec');
    expect(commandOf('redis')).toContain('--maxmemory-policy noeviction');
    const replSet = /--replSet (\S+)/.exec(commandOf('mongo'))?.[1];
    const mongoUrl = environmentOf(appServices.find((s) => s.dir === 'scheduler')?.spec ?? {})['MONGO_URL'];
    expect(new URL(String(mongoUrl)).searchParams.get('replicaSet')).toBe(replSet);
    // rs.initiate must advertise the address the services dial, or the driver discovers an unreachable member.
    const healthcheck = JSON.stringify(mapAt(services['mongo'], 'healthcheck', 'mongo')['test']);
    expect(healthcheck).toContain(`_id: '${String(replSet)}'`);
    expect(healthcheck).toContain(`host: '${new URL(String(mongoUrl)).host}'`);
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = readDockerfile(readText('deploy/Dockerfile'));
  const final = dockerfile.stages[dockerfile.stages.length - 1];
  const finalOf = (keyword: string): string[] => (final?.instructions ?? []).filter((i) => i.keyword === keyword).map((i) => i.args);
  const entrypointScript = readText('deploy/docker-entrypoint.sh');

  it('copies every workspace package.json before the sources, as pnpm --frozen-lockfile needs', () => {
    const manifests = dockerfile.stages.find((s) => s.name === 'manifests');
    const copied = (manifests?.instructions ?? []).flatMap((i) => copySources(i)?.sources ?? []);
    const missing = workspacePackageDirs()
      .map((dir) => `${dir}/package.json`)
      .filter((file) => !copied.includes(file))
      .map((file) => `add to the manifests stage: COPY ${file} ${file.replace(/package\.json$/, '')}`);
    expect(missing).toEqual([]);
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml']));
  });

  it('installs the pnpm version package.json pins and builds on the Node major it requires', () => {
    const pkg = JSON.parse(readText('package.json')) as { packageManager: string; engines: { node: string } };
    const install = dockerfile.stages.flatMap((s) => s.instructions).find((i) => /npm install --global pnpm@/.test(i.args));
    expect(install?.args).toContain(pkg.packageManager);
    const image = dockerfile.preamble.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_IMAGE='))?.args;
    const major = Number(/node:(\d+)/.exec(image ?? '')?.[1]);
    expect(major).toBeGreaterThanOrEqual(Number(/(\d+)/.exec(pkg.engines.node)?.[1])); // the lowest major engines names
  });

  it('only copies context paths that exist and that .dockerignore lets through', () => {
    const ignored = dockerIgnoreMatcher(readText('.dockerignore'));
    const problems = dockerfile.stages.flatMap((s) =>
      s.instructions.flatMap((i) =>
        (copySources(i)?.sources ?? []).flatMap((src) => [
          ...(existsSync(join(ROOT, src)) ? [] : [`line ${i.line}: ${src} does not exist`]),
          ...(ignored(src) ? [`line ${i.line}: ${src} is excluded by .dockerignore`] : []),
        ]),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('keeps stale build output out of the context, so tsc -b in the image really compiles', () => {
    const ignored = dockerIgnoreMatcher(readText('.dockerignore'));
    expect(['services/agent/dist/main.js', 'packages/runtime/tsconfig.tsbuildinfo', 'node_modules/x', 'packages/bus/node_modules/y'].filter((p) => !ignored(p))).toEqual([]);
    expect(['services/agent/src/main.ts', 'tsconfig.base.json', 'deploy/healthcheck.js'].filter(ignored)).toEqual([]);
  });

  it('starts services/$SERVICE/dist/main.js, which is where each service’s tsconfig and package.json put it', () => {
    expect(finalOf('ENTRYPOINT').join()).toContain('/app/deploy/docker-entrypoint.sh');
    expect(entrypointScript).toMatch(/^exec node "services\/\$\{SERVICE\}\/dist\/main\.js"$/m);
    for (const dir of runnableServices()) {
      const tsconfig = JSON.parse(readText(`services/${dir}/tsconfig.json`)) as { compilerOptions: { rootDir: string; outDir: string } };
      expect({ dir, rootDir: tsconfig.compilerOptions.rootDir, outDir: tsconfig.compilerOptions.outDir }).toEqual({ dir, rootDir: 'src', outDir: 'dist' });
      const pkg = JSON.parse(readText(`services/${dir}/package.json`)) as { main?: string };
      expect({ dir, main: pkg.main }).toEqual({ dir, main: './dist/main.js' });
    }
  });

  it('runs as the node user (by number, 1000:1000) in production mode with SERVICE from the build argument and a /healthz check', () => {
    expect(finalOf('USER')).toEqual(['1000:1000']);
    expect(finalOf('ENV')).toEqual(expect.arrayContaining(['NODE_ENV=production', 'SERVICE=${SERVICE}']));
    expect(finalOf('ARG').some((a) => /^SERVICE(=|$)/.test(a))).toBe(true);
    expect(finalOf('HEALTHCHECK').join()).toContain('/app/deploy/healthcheck.js');
    // tini as PID 1 forwards SIGTERM; the script then execs node (tested in container-scripts.test.ts).
    expect(finalOf('ENTRYPOINT').join()).toMatch(/^\["\/usr\/bin\/tini", "--"/);
  });

  it('runs the services under the heap limit the local stack gives them', () => {
    // Quoted: the options hold a space, which Docker's ENV would otherwise read as the next variable.
    expect(finalOf('ENV')).toContain(`NODE_OPTIONS="${serviceNodeOptions(undefined)}"`);
  });

  it('copies into the runtime image the compiled output of the stage that runs tsc -b', () => {
    const build = dockerfile.stages.find((s) => s.instructions.some((i) => i.keyword === 'RUN' && i.args.includes('tsc -b')));
    expect(build).toBeDefined();
    expect(finalOf('COPY')).toEqual(expect.arrayContaining([`--from=${build?.name ?? '?'} /out ./`]));
    expect(build?.instructions.find((i) => i.args.includes('tsc -b'))?.args).toContain('cp -R "$dir/dist" "/out/$dir/dist"');
  });
});
