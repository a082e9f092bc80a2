// Unit and integration tests (`*.spec.ts`). Integration specs talk to the real PostgreSQL, NATS and S3
// brought up by tools/stack/test.sh; e2e specs (`*.e2e-spec.ts`) run with jest.e2e.config.js.
const os = require('node:os');
const preset = require('./jest.preset.js');

/** @type {import('jest').Config} */
module.exports = {
  ...preset,
  rootDir: '.',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts'],
  testTimeout: 60_000,
  // One and a half workers per core: the integration specs spend part of their time waiting on PostgreSQL, NATS,
  // S3 and child processes. On 2 cores, 2 workers left a fifth of the CPU idle through the run; 3 took 425 s
  // against 531 s, with every test passing.
  // (Computed here: Jest reads a percentage above 100 % as a number of workers.)
  maxWorkers: Math.max(1, Math.floor(os.availableParallelism() * 1.5)),
};
