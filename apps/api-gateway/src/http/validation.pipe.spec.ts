import * as contracts from '@cp/contracts';
import {
  CreateAiDetectionOrderDto,
  CreateAntiAiOrderDto,
  CreateAntiAiWithUrlsDto,
  CreateEmbedOrderDto,
  CreateV2EmbedOrderDto,
  CreateV2ExtractOrderDto,
  CreateWebhookBody,
  DomainException,
  ErrorCode,
  firstUnbuiltKey,
  ListWebhookEventsParams,
  UpdateWebhookBody,
  V2RecentStatsParams,
} from '@cp/contracts';
import { ArgumentMetadata } from '@nestjs/common';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_DOCUMENT_PATH } from '../openapi/openapi-document';
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

// Outside review: class-validator's IsOptional let `null` through every optional field. `"isActive": null` reached a
// NOT NULL column (500), `"originalFileUrl": null` made another idempotency fingerprint than the same body without it
// (409). No field of a request is nullable: a missing key is "absent", `null` is refused (docs/api-decisions.md).
describe('null in an optional field of a request body', () => {
  const pipe = createValidationPipe();
  const URL = 'https://images.example.com/a.jpg';
  const TARGET = { fileKey: 'a.jpg', url: 'https://bucket.example.com/a.jpg?sig=1', presignedUrlExpiresAt: '2026-11-20T10:00:00Z' };
  type Body = Record<string, unknown>;
  /** The field, its DTO, a valid body with the field set, the object holding the field, and its key. */
  const cases: Array<[string, ArgumentMetadata['metatype'], Body, (body: Body) => Body, string]> = [
    ['v3 embed files[].originalFileUrl', CreateEmbedOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg', originalFileUrl: URL, watermarks: [{ text: 'ab' }] }] }, (b) => (b.files as Body[])[0], 'originalFileUrl'],
    ['v2 embed files[].originalFileUrl', CreateV2EmbedOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg', originalFileUrl: URL, watermarks: [{ text: 'ab' }] }] }, (b) => (b.files as Body[])[0], 'originalFileUrl'],
    ['v2 extract includeOriginal', CreateV2ExtractOrderDto, { idempotencyKey: 'n1', file: { fileName: 'a.jpg' }, includeOriginal: true }, (b) => b, 'includeOriginal'],
    ['AI detection options', CreateAiDetectionOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { generateHeatmap: true } }, (b) => b, 'options'],
    ['AI detection options.generateHeatmap', CreateAiDetectionOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { generateHeatmap: true } }, (b) => b.options as Body, 'generateHeatmap'],
    ['AI detection options.generateOverlay', CreateAiDetectionOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { generateOverlay: true } }, (b) => b.options as Body, 'generateOverlay'],
    ['AI detection files[].originalFileUrl', CreateAiDetectionOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg', originalFileUrl: URL }] }, (b) => (b.files as Body[])[0], 'originalFileUrl'],
    ['anti-AI orderName', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], orderName: 'batch' }, (b) => b, 'orderName'],
    ['anti-AI options', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { strength: 'low' } }, (b) => b, 'options'],
    ['anti-AI options.strength', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { strength: 'low' } }, (b) => b.options as Body, 'strength'],
    ['anti-AI options.tdmPolicyUrl', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { tdmPolicyUrl: URL } }, (b) => b.options as Body, 'tdmPolicyUrl'],
    ['anti-AI options.rights', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], options: { rights: 'no training' } }, (b) => b.options as Body, 'rights'],
    ['anti-AI mode', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], mode: { zeroCopy: false } }, (b) => b, 'mode'],
    ['anti-AI mode.outputTargets', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg' }], mode: { zeroCopy: true, outputTargets: [TARGET] } }, (b) => b.mode as Body, 'outputTargets'],
    ['anti-AI files[].originalFileUrl', CreateAntiAiOrderDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg', originalFileUrl: URL }] }, (b) => (b.files as Body[])[0], 'originalFileUrl'],
    ['anti-AI with URLs outputTargets', CreateAntiAiWithUrlsDto, { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg', imageUrl: URL }], outputTargets: [TARGET] }, (b) => b, 'outputTargets'],
    ['webhook isActive', UpdateWebhookBody, { name: 'cms', url: 'https://hooks.example.com/x', isActive: false }, (b) => b, 'isActive'],
  ];

  it.each(cases)('%s: a value passes, a missing key passes, null is 400 VALIDATION_FAILED', async (_field, metatype, valid, holder, name) => {
    expect(await codeOf(() => pipe.transform(structuredClone(valid), body(metatype)))).toBe('passed');
    const absent = structuredClone(valid);
    delete holder(absent)[name];
    expect(await codeOf(() => pipe.transform(absent, body(metatype)))).toBe('passed');
    const nulled = structuredClone(valid);
    holder(nulled)[name] = null;
    expect(await codeOf(() => pipe.transform(nulled, body(metatype)))).toBe(ErrorCode.VALIDATION_FAILED);
  });
});

describe('every optional field of every public request', () => {
  /**
   * The request body schemas of the published document (which openapi-document.spec.ts holds equal to the routes the
   * gateway serves) and every schema they refer to: a new body or nested object is checked without being listed.
   */
  function requestBodyClasses(): string[] {
    const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../../..', OPENAPI_DOCUMENT_PATH), 'utf8')) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
      components: { schemas: Record<string, unknown> };
    };
    const pending = Object.values(document.paths)
      .flatMap((operations) => Object.values(operations))
      .flatMap((operation) => Object.values(operation.requestBody?.content ?? {}))
      .flatMap((media) => (media.schema.$ref ? [media.schema.$ref] : []));
    const seen = new Set<string>();
    for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
      const name = ref.slice(ref.lastIndexOf('/') + 1);
      if (!seen.has(name)) {
        seen.add(name);
        pending.push(...[...JSON.stringify(document.components.schemas[name]).matchAll(/"(#\/components\/schemas\/[A-Za-z0-9]+)"/g)].map((match) => match[1]));
      }
    }
    return [...seen].sort();
  }

  const bodies = requestBodyClasses();
  const queries: Array<[string, new () => object]> = [
    ['ListWebhookEventsParams', ListWebhookEventsParams],
    ['V2RecentStatsParams', V2RecentStatsParams],
  ];
  const exported = contracts as unknown as Record<string, unknown>;

  it('finds the request bodies and their nested objects', () => {
    expect(bodies).toEqual(expect.arrayContaining(['CreateEmbedOrderDto', 'EmbedFileDto', 'UpdateWebhookBody', 'AntiAiOptionsDto', 'AiDetectionOptionsDto']));
  });

  it.each([...bodies.map((name): [string, unknown] => [name, exported[name]]), ...queries])('%s: no rule is skipped for null (only a missing key is absent)', (_name, type) => {
    expect(typeof type).toBe('function');
    const skippedForNull = getMetadataStorage()
      .getTargetValidationMetadatas(type as new () => object, '', true, false)
      .filter((rule) => rule.type === ValidationTypes.CONDITIONAL_VALIDATION)
      .filter((rule) => !(rule.constraints[0] as (object: object, value: unknown) => boolean)({ [rule.propertyName]: null }, null))
      .map((rule) => rule.propertyName);
    expect(skippedForNull).toEqual([]);
  });
});

// Outside review: `"name": ""` was 400 but `"name": "   "` was 201, stored as "" (the service trimmed after validation).
// Name and URL are trimmed before their rules now.
describe('trimmed webhook fields', () => {
  const pipe = createValidationPipe();
  const URL = 'https://hooks.example.com/x';

  it.each([
    ['create', CreateWebhookBody, {}],
    ['update', UpdateWebhookBody, { isActive: true }],
  ] as const)('%s: a name or URL of white space only is 400 VALIDATION_FAILED, like an empty one', async (_route, metatype, rest) => {
    for (const name of ['', '   ', ' \u00a0\u3000 ']) {
      expect({ name, code: await codeOf(() => pipe.transform({ name, url: URL, ...rest }, body(metatype))) }).toEqual({ name, code: ErrorCode.VALIDATION_FAILED });
    }
    expect(await codeOf(() => pipe.transform({ name: 'cms', url: '   ', ...rest }, body(metatype)))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it.each([
    ['create', CreateWebhookBody],
    ['update', UpdateWebhookBody],
  ] as const)('%s: a name and URL with white space around them are trimmed before they are judged', async (_route, metatype) => {
    expect(await pipe.transform({ name: '  orders to the CMS  ', url: ` ${URL} ` }, body(metatype))).toMatchObject({ name: 'orders to the CMS', url: URL });
    // 100 characters once trimmed: the limit applies to what is stored
    expect(await codeOf(() => pipe.transform({ name: ` ${'n'.repeat(100)} `, url: URL }, body(metatype)))).toBe('passed');
    expect(await codeOf(() => pipe.transform({ name: 'n'.repeat(101), url: URL }, body(metatype)))).toBe(ErrorCode.VALIDATION_FAILED);
  });
});
