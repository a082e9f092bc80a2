#!/usr/bin/env node
// Production build: compiles apps/ and libs/ (TypeScript → CommonJS) into dist/ with SWC, rewriting the
// @cp/* path aliases into relative imports, so a service runs as `node dist/apps/<service>/src/main.js`.
// Type checking is a separate step (`npm run typecheck`).
//   node tools/build.mjs            build everything (the services, and the operator's admin CLI: dist/tools/admin/admin.js,
//                                   run inside a service's pod, deploy/README.md "Accounts, keys and parked messages")
//   node tools/build.mjs apps/orders  build what one folder needs (its libs are always built)
import { transformFileSync } from '@swc/core';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.join(root, 'dist');
const swcrc = JSON.parse(readFileSync(path.join(root, '.swcrc'), 'utf8'));
const { compilerOptions } = JSON.parse(readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8'));

function files(dir, keep) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      // assembly/: AssemblyScript sources, compiled to WebAssembly by tools/wasm (not TypeScript for Node)
      return name === '__fixtures__' || name === 'assembly' ? [] : files(full, keep);
    }
    return keep(full) ? [full] : [];
  });
}

const isSource = (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts');
// Plain ES modules loaded by path at run time (the worker scripts of @cp/bounded-worker: the PDF renderer, the C2PA
// reader, and the worker-port.mjs they import by relative path) are copied as they are; so are the files of a
// library's `trust/` folder (the dated C2PA trust list snapshots @cp/ai-detection reads at start).
const isRuntimeAsset = (file) => file.endsWith('.mjs') || file.split(path.sep).includes('trust');

const targets = process.argv.slice(2);
const folders = targets.length > 0 ? [...targets, 'libs'] : ['apps', 'libs', 'tools/admin'];
if (targets.length === 0) {
  rmSync(out, { recursive: true, force: true });
}
let count = 0;
for (const folder of folders) {
  for (const asset of files(path.join(root, folder), isRuntimeAsset)) {
    const target = path.join(out, path.relative(root, asset));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(asset, target);
  }
  for (const file of files(path.join(root, folder), isSource)) {
    const { code, map } = transformFileSync(file, {
      ...swcrc,
      swcrc: false,
      filename: file,
      sourceMaps: true,
      jsc: { ...swcrc.jsc, baseUrl: root, paths: compilerOptions.paths },
    });
    const target = path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    writeFileSync(`${target}.map`, map ?? '');
    count += 1;
  }
}
console.log(`built ${count} files into ${path.relative(root, out)}/`);
