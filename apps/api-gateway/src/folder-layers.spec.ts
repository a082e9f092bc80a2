// Issue 31: the folders of the gateway import each other downwards only: the HTTP basics, then auth and rate
// limits, then the controllers of each surface, one folder per order type above them, and the assembly (the app
// module, the HTTP pipeline, the OpenAPI document) at the top. Spec files are left out.
import { importGraph, layeringViolations, sourceFiles } from '@cp/testing';

/** From the lowest folder to the highest; folders of one line may import each other, without a circle. */
const LAYERS = [
  ['gateway.config.ts'],
  ['http'],
  ['rate-limit'],
  ['auth', 'database'],
  ['orders', 'reports', 'results', 'test-uploads', 'v2', 'webhooks', 'accounts'],
  ['order-types/watermark-embed', 'order-types/watermark-extract', 'order-types/anti-ai', 'order-types/ai-detection'],
  ['order-types-http.module.ts', 'app.module.ts', 'openapi', 'http-pipeline.ts', 'main.ts'],
];

/** A file's folder: its first folder, a type's own folder under `order-types/`, or itself at the root. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'order-types' && parts.length > 2) {
    return `${parts[0]}/${parts[1]}`;
  }
  return parts.length > 1 ? parts[0] : file;
}

describe('gateway folders import downwards only', () => {
  it('no import runs up a layer or closes a circle between sibling folders, and every folder has its layer', () => {
    const graph = importGraph(__dirname, sourceFiles(__dirname));
    expect(graph.get('app.module.ts')).toContain('order-types-http.module.ts');
    expect(layeringViolations(graph, LAYERS, folderOf)).toEqual([]);
  });
});
