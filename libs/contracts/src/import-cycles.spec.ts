// No import circle inside the contracts library (issue 31): its files are loaded by every service, and a circle
// makes the value a file reads from another depend on which file happened to be loaded first. Type-only imports
// count too: they tie the files together as much for a reader, and become value imports with one edit.
import { findCycles, importGraph, sourceFiles } from '@cp/testing';

describe('libs/contracts imports', () => {
  it('form no circle', () => {
    const graph = importGraph(__dirname, sourceFiles(__dirname));
    expect(graph.get('catalog.ts')).toContain('orders.ts');
    expect(findCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

});
