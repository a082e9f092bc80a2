// Property-based fuzzing of the whole HTTP API, driven by the gateway's own OpenAPI document: every
// documented operation (and undocumented methods on its paths) with path ids of every shape, bodies
// derived from the request schemas then mutated (wrong types, huge and tiny numbers, every Unicode
// plane, NUL and control characters, long strings, extra keys), raw non-JSON bodies and odd headers.
// Property: never a 5xx, every error is `{ code }` with a documented code, no stack trace or file path
// in a body, and the gateway still answers afterwards.
//   CI (npm test): fixed seed, FUZZ_RUNS requests (default 2000).
//   npm run fuzz: random seed (printed), more requests; replay a finding with FUZZ_SEED=<seed>.
import { ErrorCode } from '@cp/contracts';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { api, createAccount, openSchema, TestAccount } from './support/e2e-stack';

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

interface Operation {
  method: string;
  path: string;
  body: Schema | null;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

interface FuzzRequest {
  operation: Operation;
  method: string;
  path: string;
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; contentType: string } | { kind: 'none' };
  auth: number;
  headers: Record<string, string>;
}

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20_201;
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const DOCUMENTED_CODES = new Set<string>(Object.values(ErrorCode));
/** What must never reach a client: stack frames, source or install paths, internal error names. */
const LEAK = /\bat [\w.<>]+ \(|\/work\/|\/home\/|node_modules|\.[jt]s:\d+|\b(TypeError|RangeError|SyntaxError|QueryFailedError)\b|\bstack\b/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Strings a parser, validator or database might choke on. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u001b', '\n', '\t', '\u007f', '\u0085', '\u202e', '\ufeff', '\ud800', '\udfff', '😀', '"', '\\', '/', '%', '.'), maxLength: 12 }),
  fc.constantFrom('', ' ', '../../etc/passwd', '..%2f..%2f', 'a'.repeat(5000), 'null', 'true', '0', '-1', '1e999', 'NaN', '__proto__', 'constructor', '${jndi:x}', "' OR 1=1 --", 'https://127.0.0.1/', 'https://[::ffff:127.0.0.1]/a.png'),
  fc.string({ minLength: 256, maxLength: 3000 }),
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 2 ** 31, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, Number.MIN_VALUE, 1e308),
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 4 }),
  hostileString,
  hostileNumber,
  fc.array(hostileString, { maxLength: 50 }),
);

const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String),
  fc.nat().map(String),
  fc.constantFrom('0', '1', '00000000000000000001', '9223372036854775807', '9223372036854775808', '99999999999999999999', '-1', '1.5', '1e5', '0x1f', '1-1', '1-99999999999999999999', 'en-US', 'xx-XX', 'stats', 'recent', 'webhooks'),
  hostileString.filter((value) => value.length > 0 && value.length < 300),
);

/** Percent-encodes every UTF-8 byte (lone surrogates become U+FFFD, which encodeURIComponent refuses). */
function encodeSegment(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  let current = schema;
  for (let hop = 0; current.$ref && hop < 10; hop += 1) {
    current = components[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return current;
}

/** A value that fits the schema where it can, a hostile one now and then at every level. */
function fromSchema(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, components);
  const alternatives = resolved.allOf ?? resolved.oneOf ?? resolved.anyOf;
  let fitting: fc.Arbitrary<unknown>;
  if (depth > 5) {
    fitting = fc.constant(null);
  } else if (resolved.enum) {
    fitting = fc.constantFrom(...resolved.enum);
  } else if (alternatives && alternatives.length > 0) {
    fitting = fc.oneof(...alternatives.map((alternative) => fromSchema(alternative, components, depth + 1)));
  } else if (resolved.type === 'object' || resolved.properties) {
    const properties = resolved.properties ?? {};
    const record = fc.record(
      Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, fromSchema(property, components, depth + 1)])),
      { requiredKeys: (resolved.required ?? []).filter((name) => name in properties) },
    );
    fitting = fc.tuple(record, fc.option(fc.dictionary(hostileString, anyJson, { maxKeys: 2 }), { freq: 5 })).map(([value, extra]) => ({ ...(extra ?? {}), ...value }));
  } else if (resolved.type === 'array') {
    fitting = fc.array(fromSchema(resolved.items ?? {}, components, depth + 1), { maxLength: 12 });
  } else if (resolved.type === 'integer' || resolved.type === 'number') {
    fitting = hostileNumber;
  } else if (resolved.type === 'boolean') {
    fitting = fc.boolean();
  } else if (resolved.type === 'string' && resolved.format === 'uri') {
    fitting = fc.oneof(fc.webUrl(), hostileString);
  } else if (resolved.type === 'string' && resolved.format === 'date-time') {
    fitting = fc.oneof(fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), hostileString);
  } else if (resolved.type === 'string') {
    fitting = fc.oneof(fc.string({ maxLength: 30 }), fc.uuid(), hostileString);
  } else {
    fitting = anyJson;
  }
  return fc.oneof({ arbitrary: fitting, weight: 8 }, { arbitrary: anyJson, weight: 1 });
}

function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method.toUpperCase()))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        body: operation.requestBody?.content?.['application/json']?.schema ?? null,
      })),
  );
}

function requestArbitrary(operations: Operation[], components: Record<string, Schema>, accounts: number): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((operation) =>
    fc.record({
      operation: fc.constant(operation),
      method: fc.oneof({ arbitrary: fc.constant(operation.method), weight: 6 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
      path: fc
        .array(pathSegment, { minLength: 4, maxLength: 4 })
        .chain((segments) =>
          fc.constantFrom(
            operation.path.replace(/\{\w+\}/g, (_name, offset: number) => encodeSegment(segments[offset % segments.length])),
            `${operation.path.replace(/\{\w+\}/g, '1')}/${encodeSegment(segments[0])}`,
            `${operation.path.replace(/\{\w+\}/g, '1')}?${encodeSegment(segments[1])}=${encodeSegment(segments[2])}&date=${encodeSegment(segments[3])}`,
          ),
        ),
      body: fc.oneof(
        { arbitrary: fromSchema(operation.body ?? {}, components).map((value) => ({ kind: 'json' as const, value })), weight: 6 },
        { arbitrary: anyJson.map((value) => ({ kind: 'json' as const, value })), weight: 2 },
        {
          arbitrary: fc.record({
            kind: fc.constant('raw' as const),
            text: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('{', '[1,', '{"a":1}garbage', '\u0000', '{"__proto__":{"x":1}}', `${'['.repeat(3000)}${']'.repeat(3000)}`, '1e99999')),
            contentType: fc.constantFrom('application/json', 'application/json; charset=utf-16', 'application/json; charset=koi8-r', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/merge-patch+json'),
          }),
          weight: 2,
        },
        { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
      ),
      auth: fc.oneof({ arbitrary: fc.nat({ max: accounts * 2 - 1 }), weight: 9 }, { arbitrary: fc.constant(-1), weight: 1 }),
      headers: fc.dictionary(
        fc.constantFrom('Idempotency-Key', 'Accept', 'Accept-Language', 'X-Forwarded-For', 'Content-Encoding', 'If-None-Match', 'X-Request-Id', 'Range'),
        fc.oneof(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 300 }), fc.constantFrom('gzip', 'br', '*/*', 'bytes=0-1', '999.999.999.999')),
        { maxKeys: 3 },
      ),
    }),
  );
}

describe('API fuzzing from the OpenAPI document', () => {
  let gateway: DataSource;
  const accounts: TestAccount[] = [];
  let operations: Operation[];
  let components: Record<string, Schema>;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    // Several accounts keep the run under each plan's per-minute rate limit.
    for (let index = 0; index < 4; index += 1) {
      accounts.push(await createAccount(gateway, 'enterprise', 500));
    }
    const document = (await api<OpenApiDocument>('/api/docs-json')).body;
    operations = operationsOf(document);
    components = document.components?.schemas ?? {};
    expect(operations.length).toBeGreaterThan(15);
  });

  afterAll(async () => {
    await gateway.destroy();
  });

  it(`${RUNS} requests (seed ${SEED}): never a 5xx, errors are documented { code }, no internals leak`, async () => {
    process.stdout.write(`api fuzz: seed ${SEED}, ${RUNS} requests, ${operations.length} operations\n`);
    await fc.assert(
      fc.asyncProperty(requestArbitrary(operations, components, accounts.length), async (request) => {
        const keys = accounts.flatMap((account) => [account.liveKey, account.testKey]);
        const key = request.auth >= 0 ? keys[request.auth] : undefined;
        const response = await api(request.path, {
          method: request.method,
          key,
          headers: { ...request.headers, ...(request.body.kind === 'raw' ? { 'Content-Type': request.body.contentType } : {}) },
          ...(request.body.kind === 'json' && request.method !== 'GET' ? { body: request.body.value } : {}),
          ...(request.body.kind === 'raw' && request.method !== 'GET' ? { rawBody: request.body.text } : {}),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
        expect(response.status).toBeLessThan(500);
        expect(text).not.toMatch(LEAK);
        if (response.status >= 400 && request.method !== 'OPTIONS') {
          expect(Object.keys(response.body as object)).toEqual(['code']);
          expect(DOCUMENTED_CODES.has((response.body as { code: string }).code)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    process.stdout.write(`api fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`);
    expect([...statuses.values()].reduce((sum, count) => sum + count, 0)).toBe(RUNS);
    // The gateway still answers, and with the right thing.
    expect((await api('/health')).status).toBe(200);
    expect((await api('/api/v3/orders/1', { key: accounts[0].liveKey })).body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
  }, 600_000);
});
