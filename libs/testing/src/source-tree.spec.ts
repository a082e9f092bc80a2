// The structure checks the services' specs rely on (import cycles, layers of folders, names in shared code):
// each must find what it looks for, or the specs that use it pass for nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findCycles, importGraph, importSpecifiers, layeringViolations, sourceFiles, stringLiteralsIn } from './source-tree';

describe('source tree checks', () => {
  it('reads every import and re-export of a source, whatever its shape, and no string that only looks like one', () => {
    const source = `import { a,\n b } from './x';\nimport type { C } from "../y";\nexport * from './z';\nimport './side';\nexport const q = 'import';\nconst s = "from './no'";\nexport { d } from './w';`;
    expect(importSpecifiers(source)).toEqual(['./x', '../y', './z', './side', './w']);
  });

  it('resolves relative imports to files of the tree, spec files left out', () => {
    const files = sourceFiles(__dirname).map((file) => path.relative(__dirname, file));
    expect(files).toContain('source-tree.ts');
    expect(files).not.toContain('source-tree.spec.ts');
    expect(importGraph(__dirname, sourceFiles(__dirname)).get('index.ts')).toContain('source-tree.ts');
  });

  it('finds a circle, whatever node it enters it by', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['c.ts']],
    ]);
    expect(findCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('finds an import that runs up, a circle between siblings and a folder without a layer', () => {
    const layers = [['domain'], ['orders'], ['processing', 'reports']];
    const folderOf = (file: string): string => file.split('/')[0];
    const broken = new Map([
      ['domain/order.ts', ['orders/orders.repository.ts']],
      ['processing/a.ts', ['reports/b.ts', 'domain/order.ts']],
      ['reports/b.ts', ['processing/a.ts']],
      ['extra/c.ts', ['domain/order.ts']],
    ]);
    expect(layeringViolations(broken, layers, folderOf)).toEqual([
      'up: domain/order.ts → orders/orders.repository.ts',
      'not in the layers: extra',
      'circle: processing → reports → processing',
    ]);
    expect(layeringViolations(new Map([['processing/a.ts', ['reports/b.ts', 'orders/x.ts']]]), layers, folderOf)).toEqual([]);
  });

  it('finds a word held as a whole string literal, not inside a longer string', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'source-tree-'));
    writeFileSync(path.join(root, 'a.ts'), 'const a = "needle";\nconst b = "a needle here";\nconst c = `needle`;\nconst needle = 1;\n');
    try {
      expect(stringLiteralsIn(root, ['a.ts'], ['needle', 'thread'])).toEqual(['a.ts: needle', 'a.ts: needle']);
    } finally {
      rmSync(root, { recursive: true });
    }
  });
});
