#!/usr/bin/env node
// The `sas` command as package.json's `bin` names it. It is a committed file, not the build
// output, so that pnpm can link it into node_modules/.bin when it installs, before anything is
// built; it then runs the compiled CLI, or says how to build it.
'use strict';

const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(main)) {
  console.error(
    `sas: the CLI is not built (${main} is missing). Run \`npm run setup\` in the repository root, then try again.`,
  );
  process.exit(1);
}
require(main);
