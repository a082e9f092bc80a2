import { V2_SUNSET_HTTP_DATE } from '@cp/contracts';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { HeaderObject, OperationObject, ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { OPENAPI_SCHEMAS } from './openapi-schemas';
import { RESPONSE_VIEWS } from './openapi-views';

/** Where the committed document lives: the SDK's types are generated from it (`npm run sdk:generate`). */
export const OPENAPI_DOCUMENT_PATH = 'libs/sdk/openapi.json';

/** The server written into the committed document: the local stack `npm start` runs. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:3000';

const DESCRIPTION = [
  'HTTP JSON API that processes image and PDF files in orders: invisible watermark embedding (one output per recipient text),',
  'extraction from a leaked copy given the original, PDF detection reports (ko-KR, en-US, ja-JP) and signed webhooks.',
  '',
  'Successful responses put their payload in `data`; errors are `{ "code": <string> }` with the codes listed per operation.',
  'Every endpoint requires `Authorization: Bearer <API_KEY>` except the upload sinks, whose URLs carry their own authorization.',
  'Test keys (`sk_test_`) run the same order lifecycle with simulated results, no credits and no stored files.',
].join('\n');

const TAGS: Array<[string, string]> = [
  ['orders (v3)', 'Watermark embed and extract orders, order reads and result downloads (spec 4.1–4.5).'],
  ['reports (v3)', 'PDF detection reports of extract orders (spec 4.6, 4.7).'],
  ['uploads', 'Upload sink of test-key orders (spec 4.8).'],
  ['orders (v2, deprecated)', 'The v2 order operations; the v2 embed and extract endpoints are retired (spec 4.9–4.17, 9).'],
  [
    'webhooks (v2)',
    'Webhook management and delivery events (spec 4.16, 6). A webhook belongs to the key mode that created it: a test key ' +
      'sees and manages only test webhooks and their test-order events, a live key only live webhooks; a webhook of the other ' +
      'mode is 404 `RESOURCE_NOT_FOUND` like an unknown id. Test webhooks receive test orders\' events only, live webhooks ' +
      'live and test orders\' events (`data.testMode`).',
  ],
];

/** The OpenAPI document of the gateway's routes, with the response schemas of the public contract. */
export function buildOpenApiDocument(app: INestApplication, serverUrl: string = DEFAULT_SERVER_URL): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Content Protection Order API')
    .setDescription(DESCRIPTION)
    .setVersion('2.0.0')
    .setLicense('Proprietary: terms of service of the operator', `${serverUrl}/api/docs`)
    .addServer(serverUrl, 'this deployment')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key: `sk_live_…` or `sk_test_…`' }, 'bearer')
    .addSecurityRequirements('bearer');
  for (const [name, description] of TAGS) {
    builder.addTag(name, description);
  }
  // Tags are the API surfaces of TAGS, set on each route: a controller per order type serves routes of two surfaces.
  const document = SwaggerModule.createDocument(app, builder.build(), { autoTagControllers: false, extraModels: RESPONSE_VIEWS });
  const schemas = { ...OPENAPI_SCHEMAS, ...(document.components?.schemas ?? {}) };
  for (const schema of Object.values(schemas)) {
    typeNullableReferences(schema);
  }
  document.components = { ...document.components, schemas, headers: { ...document.components?.headers, ...RESPONSE_HEADERS } };
  documentResponseHeaders(document);
  return document;
}

/**
 * Headers the gateway sets outside the controllers, so no route decorator can name them: the rate-limit headers
 * of every authenticated answer (`api-key-auth.middleware.ts`) and the deprecation headers of the v2 routes
 * (`deprecated-route.guard.ts`, `v2-sunset.middleware.ts`).
 */
const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': { description: "requests per minute of the account's plan (spec 8)", schema: { type: 'integer', example: 300 } },
  'RateLimit-Remaining': { description: 'requests left in the sliding 60-second window (approximate across gateway replicas)', schema: { type: 'integer', example: 297 } },
  'RateLimit-Reset': {
    description: 'seconds (1–60) until the oldest counted request leaves the sliding 60-second window, i.e. until capacity comes back; 61 only after the whole plan was granted within one second across replicas',
    schema: { type: 'integer', minimum: 1, example: 58 },
  },
  Deprecation: { description: 'the route is deprecated (spec 9; RFC 9745): on every answer of the route, errors included', schema: { type: 'string', enum: ['true'], example: 'true' } },
  Sunset: { description: 'when the route stopped (spec 9.3)', schema: { type: 'string', example: V2_SUNSET_HTTP_DATE } },
  Link: {
    description:
      'the successor route, `rel="successor-version"` (RFC 8288): a fixed route, on every answer; for `getV2Order` the order\'s v3 URL with the id the service answered, on a successful answer only (never the path as sent)',
    schema: { type: 'string', example: '</api/v3/orders/wtr-embed>; rel="successor-version"' },
  },
};

/** The v2 watermark routes past their retirement: their answers carry `Sunset` too (spec 9.3, 9.4). */
const RETIRED_OPERATIONS = new Set(['createV2EmbedOrder', 'createV2ExtractOrder']);
/** Deprecated routes whose successor names the resource read: `Link` on a successful answer only. */
const VARIABLE_SUCCESSOR_OPERATIONS = new Set(['getV2Order']);
/** Answered before routing (key, rate limit, declared body size): no route headers. */
const EDGE_STATUSES = new Set(['401', '413', '429']);

function documentResponseHeaders(document: OpenAPIObject): void {
  const reference = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.put, item.post, item.delete, item.patch].filter((entry): entry is OperationObject => entry !== undefined)) {
      const successes = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      const add = (statuses: string[], names: string[]): void => {
        for (const status of statuses) {
          const response = operation.responses[status];
          if (response && !('$ref' in response)) {
            response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, reference(name)])) };
          }
        }
      };
      // Routes authorized by a token of their own (`security: []`) are not counted against a plan.
      if (operation.security?.length !== 0) {
        add([...successes, '429'], ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
      }
      if (operation.deprecated) {
        // Every answer of the route itself, errors included; the edge's refusals before routing carry none.
        const answered = Object.keys(operation.responses).filter((status) => !EDGE_STATUSES.has(status));
        const fixedSuccessor = !VARIABLE_SUCCESSOR_OPERATIONS.has(operation.operationId ?? '');
        add(answered, ['Deprecation', ...(RETIRED_OPERATIONS.has(operation.operationId ?? '') ? ['Sunset'] : []), ...(fixedSuccessor ? ['Link'] : [])]);
        if (!fixedSuccessor) {
          add(successes, ['Link']);
        }
      }
    }
  }
}

/**
 * @nestjs/swagger writes a nullable reference as `{ nullable: true, allOf: [{ $ref }] }`. OpenAPI 3.0 wants a
 * `type` beside `nullable` (the decorator's is dropped next to a reference), and by OpenAPI 3.0.3 `nullable` only
 * widens the `type` of its own schema object: the `allOf` branch, an object schema, still refuses null, so a
 * validating client refused every `result: null`. The reference becomes one branch of an `anyOf` whose other
 * branch is null alone; code generators read it as `<schema> | null`.
 */
function typeNullableReferences(schema: SchemaObject | ReferenceObject): void {
  for (const property of Object.values(('properties' in schema && schema.properties) || {})) {
    if ('allOf' in property && property.nullable === true && property.allOf?.length === 1) {
      property.type = 'object';
      property.anyOf = [...property.allOf, { enum: [null] }];
      delete property.allOf;
    }
  }
}
