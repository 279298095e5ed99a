/**
 * One jest run for the whole workspace. Unit tests sit beside pure code (`src/**\/*.test.ts`);
 * integration and end-to-end tests live in `test/` and spawn real processes, so the suite runs
 * in band (see the root `test` script). Tests import other packages through their built `dist`,
 * exactly as services do, so `tsc -b` runs first.
 */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }], '/@marcbachmann/cel-js/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // The CEL library ships ES modules only: jest's require() cannot load them untransformed (Node's can).
  transformIgnorePatterns: ['/node_modules/(?!\\.pnpm/|@marcbachmann/cel-js/)'],
  testMatch: [
    '<rootDir>/packages/*/src/**/*.test.ts',
    '<rootDir>/services/*/src/**/*.test.ts',
    '<rootDir>/tools/*/src/**/*.test.ts',
    '<rootDir>/test/**/*.test.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 120000,
};
