// Maps the tsconfig path aliases (@cp/*) to source files for Jest.
const path = require('node:path');
const { compilerOptions } = require('../../tsconfig.base.json');

function pathsToModuleNameMapper() {
  const root = path.resolve(__dirname, '../..');
  const mapper = {};
  for (const [alias, targets] of Object.entries(compilerOptions.paths)) {
    mapper[`^${alias.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`] = path.join(root, targets[0]);
  }
  return mapper;
}

module.exports = { pathsToModuleNameMapper };
