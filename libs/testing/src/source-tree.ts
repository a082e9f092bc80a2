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

/**
 * What breaks a service's layering of folders: `layers` lists its folders from the lowest (imported by
 * others, importing none above) to the highest (the root module). A file may import from its own folder,
 * from a lower layer, and from a sibling of its layer as long as the siblings' imports form no circle.
 * Returns one line per import that runs up, per circle between siblings, and per folder the layers omit.
 */
export function layeringViolations(graph: ReadonlyMap<string, readonly string[]>, layers: ReadonlyArray<readonly string[]>, folderOf: (file: string) => string): string[] {
  const layerOf = new Map(layers.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));
  const violations = new Set<string>();
  const siblingEdges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    for (const target of targets) {
      const to = folderOf(target);
      const [fromLayer, toLayer] = [layerOf.get(from), layerOf.get(to)];
      if (fromLayer === undefined || toLayer === undefined) {
        violations.add(`not in the layers: ${fromLayer === undefined ? from : to}`);
      } else if (from !== to && toLayer > fromLayer) {
        violations.add(`up: ${file} → ${target}`);
      } else if (from !== to && toLayer === fromLayer) {
        siblingEdges.set(from, (siblingEdges.get(from) ?? new Set()).add(to));
      }
    }
  }
  const siblings = new Map([...siblingEdges].map(([from, to]) => [from, [...to]] as const));
  for (const cycle of findCycles(siblings)) {
    violations.add(`circle: ${cycle.join(' → ')}`);
  }
  return [...violations];
}

/** `file: word` for each of `words` that `files` (paths under `root`) hold as a whole string literal ('x', "x" or `x`). */
export function stringLiteralsIn(root: string, files: readonly string[], words: readonly string[]): string[] {
  const literal = new RegExp(`['"\`](${words.join('|')})['"\`]`, 'g');
  return files.flatMap((file) => [...readFileSync(path.join(root, file), 'utf8').matchAll(literal)].map((match) => `${file}: ${match[1]}`));
}

/**
 * A file's folder for `layeringViolations` in a service with one folder per order type: its first folder, a
 * type's own folder under `typesFolder/` (each type is a folder of its own), or the file itself at the root.
 */
export function orderTypeAwareFolderOf(typesFolder: string): (file: string) => string {
  return (file) => {
    const parts = file.split('/');
    if (parts[0] === typesFolder && parts.length > 2) {
      return `${parts[0]}/${parts[1]}`;
    }
    return parts.length > 1 ? parts[0] : file;
  };
}
