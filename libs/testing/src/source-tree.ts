import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * A service's source tree read as text, for tests that keep its structure (which folder imports which, what
 * shared code may name). Spec files and migrations are left out: they are not the service's code.
 */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) {
        return name === 'migrations' ? [] : sourceFiles(full);
      }
      return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [full] : [];
    });
}

/**
 * The relative imports and re-exports of each of `files` (type-only ones too: they tie files together as much
 * for a reader), as paths relative to `root` (`a/b.ts`; a folder import is its `index.ts`).
 */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importSpecifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .map((specifier) => {
        const target = path.resolve(path.dirname(file), specifier);
        const asFile = `${target}.ts`;
        return path.relative(root, statSafe(asFile) ? asFile : path.join(target, 'index.ts'));
      });
    graph.set(path.relative(root, file), targets);
  }
  return graph;
}

/**
 * `import … from '…'`, `export … from '…'` and `import '…'` of a TypeScript source (no compiler loaded: this
 * runs in many specs). A statement ends at its `;`, so a match never spans two statements.
 */
const IMPORT = /(?:^|\n)\s*(?:import|export)\b(?:[^'";]*?\bfrom)?\s*['"]([^'"]+)['"]/g;

export function importSpecifiers(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((match) => match[1]);
}

function statSafe(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The circles a depth-first walk closes (at least one whenever the graph has any), each once, as the nodes along
 * it with the first repeated at the end.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const done = new Set<string>();
  const walk = (node: string, trail: string[]): void => {
    const at = trail.indexOf(node);
    if (at >= 0) {
      const cycle = trail.slice(at);
      // One key per circle whatever node the walk entered it by.
      const start = cycle.indexOf([...cycle].sort()[0]);
      const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
      cycles.set(rotated.join(' → '), [...rotated, rotated[0]]);
      return;
    }
    if (done.has(node)) {
      return;
    }
    for (const next of graph.get(node) ?? []) {
      walk(next, [...trail, node]);
    }
    done.add(node);
  };
  for (const node of [...graph.keys()].sort()) {
    walk(node, []);
  }
  return [...cycles.values()];
}
