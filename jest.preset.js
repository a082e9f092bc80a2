// Shared Jest settings: SWC transpiles TypeScript with decorator metadata (NestJS DI needs it);
// type checking is a separate step (`npm run typecheck`).
const { pathsToModuleNameMapper } = require('./tools/jest/paths');

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', require('./tools/jest/swc-options')] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(),
};
