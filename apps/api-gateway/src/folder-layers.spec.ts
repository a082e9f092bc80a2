// Issue 31: the folders of the gateway import each other downwards only: the HTTP basics, then auth and rate
// limits, then the controllers of each surface, one folder per order type above them, and the assembly (the app
// module, the HTTP pipeline, the OpenAPI document) at the top. Spec files are left out.
import { importGraph, layeringViolations, orderTypeAwareFolderOf, sourceFiles } from '@cp/testing';

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

const folderOf = orderTypeAwareFolderOf('order-types');

describe('gateway folders import downwards only', () => {
  it('no import runs up a layer or closes a circle between sibling folders, and every folder has its layer', () => {
    const graph = importGraph(__dirname, sourceFiles(__dirname));
    expect(graph.get('app.module.ts')).toContain('order-types-http.module.ts');
    expect(layeringViolations(graph, LAYERS, folderOf)).toEqual([]);
  });
});
