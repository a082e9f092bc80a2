// Unit and integration tests (`*.spec.ts`). Integration specs talk to the real PostgreSQL, NATS and S3
// brought up by tools/stack/test.sh; e2e specs (`*.e2e-spec.ts`) run with jest.e2e.config.ts.
import type { Config } from 'jest';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const preset = require('./jest.preset.js') as Config;

const config: Config = {
  ...preset,
  rootDir: '.',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};

export default config;
