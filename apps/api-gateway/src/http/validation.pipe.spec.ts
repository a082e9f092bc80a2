import { CreateEmbedOrderDto, CreateWebhookBody, DomainException, ErrorCode, firstUnbuiltKey, V2RecentStatsParams } from '@cp/contracts';
import { ArgumentMetadata } from '@nestjs/common';
import { createValidationPipe } from './validation.pipe';

const EMBED = { idempotencyKey: 'k', files: [{ fileName: 'a.jpg', watermarks: [{ text: 'ab' }] }] };
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

async function codeOf(action: () => Promise<unknown>): Promise<ErrorCode | 'passed'> {
  try {
    await action();
    return 'passed';
  } catch (error) {
    return error instanceof DomainException ? error.code : ErrorCode.SERVER_INTERNAL_ERROR;
  }
}

describe('firstUnbuiltKey', () => {
  it('names the first own key of the plain value missing from what was built, at any depth', () => {
    expect(firstUnbuiltKey({ a: 1, b: { c: [{ d: 1 }] } }, { a: 1, b: { c: [{ d: 1 }] } })).toBeNull();
    expect(firstUnbuiltKey({ a: 1, toString: 'x' }, { a: 1 })).toBe('toString');
    expect(firstUnbuiltKey({ b: { c: [{ d: 1 }, { valueOf: 2 }] } }, { b: { c: [{ d: 1 }, {}] } })).toBe('valueOf');
    expect(firstUnbuiltKey(JSON.parse('{"__proto__":{"x":1}}'), {})).toBe('__proto__');
  });

  it('looks at own keys only: a built object answering a name through its prototype has not received it', () => {
    expect(firstUnbuiltKey({ hasOwnProperty: 1, constructor: 2 }, new (class Built {})())).toBe('hasOwnProperty');
  });

  it('extra keys on the built side (defaults) and values a transformer changed in kind are fine', () => {
    expect(firstUnbuiltKey({ a: 1 }, { a: 1, page: 1 })).toBeNull();
    expect(firstUnbuiltKey({ page: '2' }, { page: 2 })).toBeNull();
    expect(firstUnbuiltKey('text', { a: 1 })).toBeNull();
  });
});

describe('the gateway validation pipe', () => {
  const pipe = createValidationPipe();

  it('builds a valid body into its DTO', async () => {
    const built: unknown = await pipe.transform(structuredClone(EMBED), body(CreateEmbedOrderDto));
    expect(built).toBeInstanceOf(CreateEmbedOrderDto);
    expect(built).toEqual(EMBED);
  });

  it.each(['foo', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__proto__', 'constructor'])('refuses an unknown %j at the top level and nested', async (name) => {
    const top = JSON.parse(`{${JSON.stringify(name)}:"x","idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}`) as unknown;
    const nested = JSON.parse(`{"idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab",${JSON.stringify(name)}:1}]}]}`) as unknown;
    expect(await codeOf(() => pipe.transform(top, body(CreateEmbedOrderDto)))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(await codeOf(() => pipe.transform(nested, body(CreateEmbedOrderDto)))).toBe(ErrorCode.VALIDATION_FAILED);
    const webhook = JSON.parse(`{"name":"pp","url":"https://hooks.example.com/x",${JSON.stringify(name)}:"x"}`) as unknown;
    expect(await codeOf(() => pipe.transform(webhook, body(CreateWebhookBody)))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('refuses them in a query object too (a null-prototype object, as Express parses queries)', async () => {
    const query = Object.assign(Object.create(null) as Record<string, string>, { date: '2026-02-01', valueOf: '1' });
    expect(await codeOf(() => pipe.transform(query, { type: 'query', metatype: V2RecentStatsParams }))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('leaves parameters that are not DTOs alone', async () => {
    expect(await pipe.transform('42', { type: 'param', metatype: String, data: 'orderId' })).toBe('42');
  });
});
