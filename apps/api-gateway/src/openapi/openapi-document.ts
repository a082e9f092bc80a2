import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
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
    .setLicense('Proprietary: terms of service of the operator', `${DEFAULT_SERVER_URL}/api/docs`)
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
  document.components = { ...document.components, schemas };
  return document;
}

/**
 * A nullable reference is `{ nullable: true, allOf: [{ $ref }] }`, and OpenAPI 3.0 wants a `type` beside
 * `nullable`; @nestjs/swagger drops the `type` a decorator gives next to a reference, so it is put back here.
 */
function typeNullableReferences(schema: SchemaObject | ReferenceObject): void {
  for (const property of Object.values(('properties' in schema && schema.properties) || {})) {
    if ('allOf' in property && property.nullable === true && property.type === undefined) {
      property.type = 'object';
    }
  }
}
