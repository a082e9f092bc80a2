import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_ERROR_CODES } from './errors';

const SDK = path.resolve(__dirname, '..');
const ROOT = path.resolve(SDK, '../..');

describe('generated types', () => {
  it('are what openapi-typescript makes of the committed document (run `npm run sdk:generate` when this fails)', () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'sdk-types-'));
    try {
      const output = path.join(scratch, 'openapi.ts');
      const config = path.join(scratch, 'redocly.yaml');
      writeFileSync(config, `apis:\n  check:\n    root: ${path.join(SDK, 'openapi.json')}\n    x-openapi-ts:\n      output: ${output}\n`);
      execFileSync(path.join(ROOT, 'node_modules/.bin/openapi-typescript'), ['--redocly', config], { cwd: scratch, stdio: 'pipe' });
      expect(readFileSync(output, 'utf8')).toBe(readFileSync(path.join(SDK, 'src/generated/openapi.ts'), 'utf8'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('API_ERROR_CODES lists exactly the error codes the document declares', () => {
    const document = readFileSync(path.join(SDK, 'openapi.json'), 'utf8');
    const declared = new Set<string>();
    for (const match of document.matchAll(/"examples": \{([^]*?)\n {12}\}/g)) {
      for (const code of match[1].matchAll(/"code": "([A-Z0-9_]+)"/g)) {
        declared.add(code[1]);
      }
    }
    expect([...declared].sort()).toEqual([...API_ERROR_CODES].sort());
  });
});
