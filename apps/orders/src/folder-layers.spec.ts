// Issue 31: the folders of the orders service import each other downwards only. A folder can be read and
// changed knowing only the ones below it; the root module assembles them all. Spec files are left out.
import { importGraph, layeringViolations, orderTypeAwareFolderOf, sourceFiles } from '@cp/testing';

/** From the lowest folder to the highest; folders of one line may import each other, without a circle. */
const LAYERS = [
  ['orders.config.ts', 'domain'],
  // The order-type kernel (`OrderTypeDefinition`, its registry, the shared output and view helpers) and credits.
  ['order-types', 'credits'],
  ['orders', 'sandbox'],
  ['processing', 'reports', 'downloads', 'expiry', 'erasure', 'stuck-orders', 'upload-window', 'timeline'],
  ['v2'],
  ['order-types/watermark-embed', 'order-types/watermark-extract', 'order-types/anti-ai', 'order-types/ai-detection'],
  // Test fixtures open the database with every folder's entities: at the top, beside it.
  ['order-type-folders.ts', 'database', '__fixtures__', 'orders.module.ts', 'app.module.ts', 'main.ts'],
];

const folderOf = orderTypeAwareFolderOf('order-types');

describe('orders folders import downwards only', () => {
  const graph = importGraph(__dirname, sourceFiles(__dirname));

  it('no import runs up a layer or closes a circle between sibling folders, and every folder has its layer', () => {
    expect(graph.get('orders.module.ts')).toContain('orders/orders.repository.ts');
    expect(layeringViolations(graph, LAYERS, folderOf)).toEqual([]);
  });

});
