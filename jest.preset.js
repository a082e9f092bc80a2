// Shared Jest settings: SWC transpiles TypeScript with decorator metadata (NestJS DI needs it);
// type checking is a separate step (`npm run typecheck`).
const { pathsToModuleNameMapper } = require('./tools/jest/paths');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', require('./tools/jest/swc-options')],
    // @contentauth/c2pa-wasm is published as ES modules only; Jest runs CommonJS, so SWC converts it.
    '/node_modules/@contentauth/c2pa-wasm/.+\\.js$': ['@swc/jest', require('./tools/jest/swc-options')],
  },
  transformIgnorePatterns: ['/node_modules/(?!@contentauth/c2pa-wasm/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(),
};
