// End-to-end suite: starts every service as its own process (global setup) and talks HTTP to the gateway.
import type { Config } from 'jest';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const preset = require('./jest.preset.js') as Config;

const config: Config = {
  ...preset,
  rootDir: '.',
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/e2e/setup/global-setup.ts',
  globalTeardown: '<rootDir>/e2e/setup/global-teardown.ts',
  testTimeout: 120_000,
};

export default config;
