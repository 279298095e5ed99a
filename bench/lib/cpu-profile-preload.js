// @ts-check
'use strict';

/**
 * Loaded with `--require` into every service process (and the embedded MongoDB) by
 * `pnpm bench -- --profile`: SIGUSR2 starts V8's CPU profiler, the next SIGUSR2 stops it and
 * writes `<SAS_CPU_PROFILE_DIR>/<pid>.cpuprofile`, then `<pid>.done` (the file is complete). The
 * benchmark signals every process at the start and the end of its measured window, so the
 * profiles cover exactly that window. An inspector session in the process itself, because Node
 * refuses `--cpu-prof` in NODE_OPTIONS and would only write at exit.
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const inspector = require('node:inspector');

const dir = process.env['SAS_CPU_PROFILE_DIR'];
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let running = false;
  /** @param {string} method @param {object} [params] @returns {Promise<any>} */
  const post = (method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  process.on('SIGUSR2', () => {
    running = !running;
    const work = running
      ? post('Profiler.enable').then(() => post('Profiler.setSamplingInterval', { interval: 1000 })).then(() => post('Profiler.start'))
      : post('Profiler.stop').then((result) => {
          writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
          writeFileSync(join(dir, `${process.pid}.done`), '');
        });
    work.catch((/** @type {unknown} */ e) => process.stderr.write(`cpu profile of ${process.pid} failed: ${String(e)}\n`));
  });
}
