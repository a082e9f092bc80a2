// Issue 31: what an order type is and does lives in its folder (`order-types/<type>/`, behind
// `OrderTypeDefinition`); the shared code of the service (the `Order` aggregate, creation, processing, reads,
// expiry, v2) names no type. The one list of types is the catalog in `@cp/contracts` (`ORDER_TYPES`).
import { ORDER_TYPES } from '@cp/contracts';
import { sourceFiles, stringLiteralsIn } from '@cp/testing';
import path from 'node:path';

const TYPE_FOLDER = /^order-types\/[^/]+\//;

describe('order-type knowledge only in its folder (orders)', () => {
  const files = sourceFiles(__dirname).map((file) => path.relative(__dirname, file));

  it('no shared file names an order type', () => {
    const shared = files.filter((file) => !TYPE_FOLDER.test(file));
    expect(shared).toEqual(expect.arrayContaining(['domain/order.ts', 'orders/order-creation.service.ts', 'orders/orders.repository.ts', 'v2/v2-view.mapper.ts']));
    expect(stringLiteralsIn(__dirname, shared, ORDER_TYPES)).toEqual([]);
  });

  it('the check sees the names where they belong: each type folder names its own type', () => {
    const named = stringLiteralsIn(__dirname, files.filter((file) => TYPE_FOLDER.test(file)), ORDER_TYPES).map((mention) => mention.split(': ')[1]);
    expect([...new Set(named)].sort()).toEqual([...ORDER_TYPES].sort());
  });
});
