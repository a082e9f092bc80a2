// Issue 31: what an order type is and does lives in its folder (`order-types/<type>/`, behind
// `OrderTypeDefinition`); the shared code of the service (the `Order` aggregate, creation, processing, reads,
// expiry, v2) names no type. The one list of types is the catalog in `@cp/contracts` (`ORDER_TYPES`).
import { ORDER_TYPES } from '@cp/contracts';
import { sourceFiles } from '@cp/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A type's name as a string literal (a comparison, a key looked up, a table of types). */
const TYPE_NAME = new RegExp(`['"\`](${ORDER_TYPES.join('|')})['"\`]`, 'g');
const TYPE_FOLDER = /^order-types\/[^/]+\//;

function typeNamesIn(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(TYPE_NAME)].map((match) => match[1]);
}

describe('order-type knowledge only in its folder (orders)', () => {
  const files = sourceFiles(__dirname).map((file) => path.relative(__dirname, file));

  it('no shared file names an order type', () => {
    const shared = files.filter((file) => !TYPE_FOLDER.test(file));
    expect(shared).toEqual(expect.arrayContaining(['domain/order.ts', 'orders/order-creation.service.ts', 'orders/orders.repository.ts', 'v2/v2-view.mapper.ts']));
    expect(shared.flatMap((file) => typeNamesIn(path.join(__dirname, file)).map((name) => `${file}: ${name}`))).toEqual([]);
  });

  it('the check sees the names where they belong: each type folder names its own type', () => {
    const named = new Set(files.filter((file) => TYPE_FOLDER.test(file)).flatMap((file) => typeNamesIn(path.join(__dirname, file))));
    expect([...named].sort()).toEqual([...ORDER_TYPES].sort());
  });
});
