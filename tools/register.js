// Require hook: runs TypeScript sources directly (services, tools, benchmarks) by transpiling them
// with SWC (keeps decorator metadata for NestJS) and resolving the @cp/* path aliases of tsconfig.base.json.
// Production images use the compiled output of `npm run build` instead.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');
const swcOptions = require('./jest/swc-options');
const { compilerOptions } = require('../tsconfig.base.json');

const root = path.resolve(__dirname, '..');
const aliases = new Map(
  Object.entries(compilerOptions.paths).map(([alias, targets]) => [alias, path.join(root, targets[0])]),
);

const originalResolve = Module._resolveFilename;
Module._resolveFilename = function resolveWithAliases(request, parent, isMain, options) {
  const target = aliases.get(request);
  return originalResolve.call(this, target ?? request, parent, isMain, options);
};

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    ...swcOptions,
    filename,
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};

process.setSourceMapsEnabled?.(true);
