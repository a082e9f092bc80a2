// Unit and integration tests (`*.spec.ts`). Integration specs talk to the real PostgreSQL, NATS and S3
// brought up by tools/stack/test.sh; e2e specs (`*.e2e-spec.ts`) run with jest.e2e.config.js.
const preset = require('./jest.preset.js');

/** @type {import('jest').Config} */
module.exports = {
  ...preset,
  rootDir: '.',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
