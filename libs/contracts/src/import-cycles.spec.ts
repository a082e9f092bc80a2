// No import circle inside the contracts library (issue 31): its files are loaded by every service, and a circle
// makes the value a file reads from another depend on which file happened to be loaded first. Type-only imports
// count too: they tie the files together as much for a reader, and become value imports with one edit.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The relative imports and re-exports of every non-spec file of `dir`, as file names of `dir`. */
function importGraph(dir: string): Map<string, string[]> {
  const files = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(dir, file), 'utf8'), true, false);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('./'))
      .map((specifier) => `${specifier.slice(2)}.ts`);
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The circles a depth-first walk closes (at least one whenever the graph has any), each once, as the files along
 * it with the first repeated at the end.
 */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const done = new Set<string>();
  const walk = (file: string, trail: string[]): void => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const cycle = trail.slice(at);
      // One key per circle whatever file the walk entered it by.
      const start = cycle.indexOf([...cycle].sort()[0]);
      const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
      cycles.set(rotated.join(' → '), [...rotated, rotated[0]]);
      return;
    }
    if (done.has(file)) {
      return;
    }
    for (const next of graph.get(file) ?? []) {
      walk(next, [...trail, file]);
    }
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) {
    walk(file, []);
  }
  return [...cycles.values()];
}

describe('libs/contracts imports', () => {
  it('form no circle', () => {
    const graph = importGraph(__dirname);
    expect(graph.get('catalog.ts')).toContain('orders.ts');
    expect(findCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('the walk finds a circle, whatever file it enters it by', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['c.ts']],
    ]);
    expect(findCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });
});
