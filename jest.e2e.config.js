// End-to-end suite: starts every service as its own process (global setup) and talks HTTP to the gateway.
const preset = require('./jest.preset.js');

/** @type {import('jest').Config} */
module.exports = {
  ...preset,
  rootDir: '.',
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/e2e/setup/global-setup.ts',
  globalTeardown: '<rootDir>/e2e/setup/global-teardown.ts',
  testSequencer: '<rootDir>/e2e/setup/sequencer.js',
  testTimeout: 120_000,
};
