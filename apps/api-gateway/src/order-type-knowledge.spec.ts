// Issue 31: each order type's routes live in its folder (`order-types/<type>/`); the shared code of the gateway
// (reads, downloads, reports, v2, the OpenAPI schemas) names no type: the list of types is `ORDER_TYPES` of
// `@cp/contracts`.
import { ORDER_TYPES } from '@cp/contracts';
import { sourceFiles, stringLiteralsIn } from '@cp/testing';
import path from 'node:path';

describe('order-type knowledge only in its folder (gateway)', () => {
  it('no shared file names an order type, and each type has its controller folder', () => {
    const files = sourceFiles(__dirname).map((file) => path.relative(__dirname, file));
    const shared = files.filter((file) => !file.startsWith('order-types/'));
    expect(shared).toEqual(expect.arrayContaining(['orders/orders.controller.ts', 'v2/v2-orders.controller.ts', 'openapi/openapi-schemas.ts']));
    expect(stringLiteralsIn(__dirname, shared, ORDER_TYPES)).toEqual([]);
    const typeFolders = new Set(files.filter((file) => file.startsWith('order-types/')).map((file) => file.split('/')[1]));
    expect(typeFolders.size).toBe(ORDER_TYPES.length);
  });
});
