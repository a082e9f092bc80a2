import { ORDER_STATUSES } from '@cp/contracts';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from './openapi-document';
import { OpenApiHostModule } from './openapi-host.module';

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Method + path of every route Express serves, in OpenAPI path syntax. */
function servedRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } };
  return express.router.stack
    .filter((layer) => layer.route)
    .flatMap((layer) =>
      Object.keys(layer.route!.methods).map((method) => `${method.toUpperCase()} ${layer.route!.path.replace(/[:*]([A-Za-z]+)/g, '{$1}')}`),
    )
    .sort();
}

interface DocumentedResponse {
  headers?: Record<string, unknown>;
  content?: unknown;
}

interface DocumentedOperation {
  operationId?: string;
  deprecated?: boolean;
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, DocumentedResponse>;
}

/** The v2 watermark routes past their retirement (spec 9.4): 410 before the body is read. */
const RETIRED = ['createV2EmbedOrder', 'createV2ExtractOrder'];

describe('OpenAPI document', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await NestFactory.create(OpenApiHostModule.register(), { logger: false });
    await app.init();
  });
  afterAll(() => app.close());

  it('documents exactly the routes the gateway serves (every controller of AppModule)', () => {
    const document = buildOpenApiDocument(app);
    const documented = Object.entries(document.paths)
      .flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`))
      .sort();
    expect(documented).toEqual(servedRoutes(app));
    expect(documented.length).toBeGreaterThan(20);
  });

  it('gives every operation an id, a 2xx and a 4xx response with error codes', () => {
    for (const operations of Object.values(buildOpenApiDocument(app).paths)) {
      for (const operation of Object.values(operations as Record<string, { operationId?: string; responses: Record<string, unknown> }>)) {
        expect(operation.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
        expect(Object.keys(operation.responses).some((status) => status.startsWith('2'))).toBe(true);
        expect(Object.keys(operation.responses).some((status) => status.startsWith('4'))).toBe(true);
      }
    }
  });

  it('lets a creation response carry every status: an idempotent replay answers the order as it is now', () => {
    // A repeated request with the same key and body returns the existing order (spec 5.6) with its current status,
    // e.g. `complete` for an AI detection order confirmed and analysed since, `complete` for a with-urls anti-AI order.
    const schemas = (buildOpenApiDocument(app).components?.schemas ?? {}) as Record<string, { properties: Record<string, { enum?: string[] }> }>;
    for (const name of ['AiDetectionOrderCreated', 'AntiAiOrderCreated', 'AntiAiWithUrlsCreated']) {
      expect([name, schemas[name].properties.status.enum]).toEqual([name, [...ORDER_STATUSES]]);
    }
  });

  it('declares what the gateway enforces and answers: no empty keys or names, a retry status that is a number, 1-based output ids', () => {
    const schemas = (buildOpenApiDocument(app).components?.schemas ?? {}) as Record<
      string,
      { properties: Record<string, { minLength?: number; nullable?: boolean; format?: string; example?: unknown }> }
    >;
    // Each refuses "" with 400 VALIDATION_FAILED (class-validator Length(1, …), a file name pattern, a trimmed name).
    const nonEmpty: Array<[string, string]> = [
      ['CreateEmbedOrderDto', 'idempotencyKey'],
      ['CreateExtractOrderDto', 'idempotencyKey'],
      ['CreateV2EmbedOrderDto', 'idempotencyKey'],
      ['CreateV2ExtractOrderDto', 'idempotencyKey'],
      ['CreateAntiAiOrderDto', 'idempotencyKey'],
      ['CreateAntiAiWithUrlsDto', 'idempotencyKey'],
      ['CreateAiDetectionOrderDto', 'idempotencyKey'],
      ['ConfirmAiDetectionOrderDto', 'idempotencyKey'],
      ['CreateAntiAiOrderDto', 'orderName'],
      ['CreateAntiAiWithUrlsDto', 'orderName'],
      ['EmbedFileDto', 'fileName'],
      ['V2EmbedFileDto', 'fileName'],
      ['OriginalFileDto', 'fileName'],
      ['ExtractFileDto', 'fileName'],
      ['V2ExtractFileDto', 'fileName'],
      ['AntiAiFileDto', 'fileName'],
      ['AntiAiUrlFileDto', 'fileName'],
      ['AiDetectionFileDto', 'fileName'],
      ['CreateWebhookBody', 'name'],
      ['UpdateWebhookBody', 'name'],
    ];
    for (const [schema, property] of nonEmpty) {
      expect([schema, property, schemas[schema].properties[property].minLength]).toEqual([schema, property, 1]);
    }
    // The retry answers 0 when no HTTP answer came back, never null; event_id is the payload's UUID.
    expect(schemas.WebhookEventRetry.properties.status_code.nullable).toBeUndefined();
    expect(schemas.WebhookEventRetry.properties.event_id.format).toBe('uuid');
    // Output ids are `{inputFileId}-{ordinal}` with a 1-based ordinal (docs/api-decisions.md).
    expect(schemas.Output.properties.fileId.example).toMatch(/^[0-9]+-[1-9][0-9]*$/);
  });

  it('declares 413 PAYLOAD_TOO_LARGE wherever a body is read (the 1 MiB body limit), not on the retired v2 routes (410 first)', () => {
    for (const [route, operations] of Object.entries(buildOpenApiDocument(app).paths)) {
      for (const [method, operation] of Object.entries(operations as Record<string, DocumentedOperation>)) {
        if (!operation.requestBody || operation.security?.length === 0 || RETIRED.includes(operation.operationId ?? '')) {
          continue;
        }
        expect([method, route, JSON.stringify(operation.responses['413']?.content ?? null)]).toEqual([method, route, expect.stringContaining('PAYLOAD_TOO_LARGE')]);
      }
    }
  });

  it('declares the rate-limit headers of every authenticated answer and the deprecation headers of the deprecated routes', () => {
    const headersOf = (response: DocumentedResponse | undefined): string[] => Object.keys(response?.headers ?? {}).sort();
    for (const [route, operations] of Object.entries(buildOpenApiDocument(app).paths)) {
      for (const [method, operation] of Object.entries(operations as Record<string, DocumentedOperation>)) {
        const where = `${method} ${route}`;
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        if (operation.security?.length !== 0) {
          for (const [status, response] of [...success, ['429', operation.responses['429']] as const]) {
            expect([where, status, headersOf(response)]).toEqual([where, status, expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])]);
          }
        }
        if (operation.deprecated) {
          // Every answer of the route, errors included (a 404 of an unknown order too); not the edge's 401, 413, 429.
          for (const [status, response] of Object.entries(operation.responses)) {
            const edge = ['401', '413', '429'].includes(status);
            const linked = operation.operationId !== 'getV2Order' || status.startsWith('2');
            const expected = [...(edge ? [] : ['Deprecation']), ...(!edge && RETIRED.includes(operation.operationId ?? '') ? ['Sunset'] : []), ...(!edge && linked ? ['Link'] : [])];
            expect([where, status, headersOf(response).filter((name) => ['Deprecation', 'Link', 'Sunset'].includes(name))]).toEqual([where, status, expected.sort()]);
          }
        }
      }
    }
  });

  // The served document named http://127.0.0.1:3000/api/docs as its license link on every deployment.
  it('points the license link at the deployment that serves the document', () => {
    const document = buildOpenApiDocument(app, 'https://api.example.com');
    expect([document.servers?.[0]?.url, document.info.license?.url]).toEqual(['https://api.example.com', 'https://api.example.com/api/docs']);
  });

  it('declares WWW-Authenticate on every 401 (the gateway sends the Bearer challenge with each)', () => {
    for (const [route, operations] of Object.entries(buildOpenApiDocument(app).paths)) {
      for (const [method, operation] of Object.entries(operations as Record<string, DocumentedOperation>)) {
        const unauthorized = operation.responses['401'];
        if (unauthorized) {
          expect([method, route, Object.keys(unauthorized.headers ?? {})]).toEqual([method, route, expect.arrayContaining(['WWW-Authenticate'])]);
        }
      }
    }
  });

  it('types the query parameters as the gateway reads them: whole page numbers, a calendar date', () => {
    const paths = buildOpenApiDocument(app).paths as Record<string, Record<string, { parameters?: Array<{ name: string; schema?: { type?: string; format?: string } }> }>>;
    const parameter = (route: string, name: string) => paths[route].get.parameters?.find((entry) => entry.name === name)?.schema;
    // `1.5` and `1.0` are 400 VALIDATION_FAILED (decimal digits only, docs/webhooks.md).
    expect(parameter('/api/v2/orders/webhooks/{webhookId}/events', 'page')?.type).toBe('integer');
    expect(parameter('/api/v2/orders/webhooks/{webhookId}/events', 'limit')?.type).toBe('integer');
    // Spec 4.13: `date` (string, date).
    expect(parameter('/api/v2/orders/stats/recent', 'date')).toMatchObject({ type: 'string', format: 'date' });
  });

  it('lets every nullable field accept null by the letter of OpenAPI 3.0.3, also a nullable reference', () => {
    // OpenAPI 3.0.3: `nullable` adds null to the `type` of its own schema object only; the other keywords keep
    // their meaning. So `{ nullable: true, allOf: [{ $ref }] }` refuses null (the referenced object schema does),
    // and a validating client refused `result: null` of every embed order. Some branch must accept null itself.
    const acceptsNull = (schema: Record<string, unknown>): boolean =>
      (Array.isArray(schema.enum) && schema.enum.includes(null)) || (schema.nullable === true && schema.$ref === undefined && schema.allOf === undefined && schema.anyOf === undefined && schema.oneOf === undefined);
    const offending: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') {
        return;
      }
      const schema = node as Record<string, unknown>;
      if (schema.nullable === true && (schema.allOf !== undefined || schema.anyOf !== undefined || schema.oneOf !== undefined)) {
        const branches = [...((schema.allOf as unknown[]) ?? []), ...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])] as Array<Record<string, unknown>>;
        const nullPasses = schema.allOf === undefined ? branches.some(acceptsNull) : branches.every(acceptsNull);
        if (!nullPasses) {
          offending.push(at);
        }
      }
      for (const [key, value] of Object.entries(schema)) {
        walk(value, `${at}/${key}`);
      }
    };
    walk(JSON.parse(JSON.stringify(buildOpenApiDocument(app))), '#');
    expect(offending).toEqual([]);
  });

  it('says what every AI-detection probability is: a fusion of weights set by rule, not a measured chance', () => {
    // The weights of docs/ai-detection.md are chosen, not fitted to measured error rates, so a bare "probability"
    // field read as "95% likely AI" claims a measurement nothing made; the reader needs its meaning at the field.
    const schemas = (buildOpenApiDocument(app).components?.schemas ?? {}) as Record<string, { properties?: Record<string, { description?: string }> }>;
    const fields = [
      ['AiDetectionFileResult', 'probability'],
      ['AiDetectionResult', 'probability'],
      ['V2OrderDetail', 'aiProbability'],
    ] as const;
    const unexplained = fields
      .map(([schema, field]) => ({ at: `${schema}.${field}`, description: schemas[schema]?.properties?.[field]?.description ?? '' }))
      .filter(({ description }) => !/set by rule/.test(description) || !/not a measured chance/.test(description))
      .map(({ at }) => at);
    expect(unexplained).toEqual([]);
  });

  it('says `noEvidence` means nothing was counted, not that nothing was found', () => {
    // A manifest that fails validation weighs 0: `noEvidence` is true although the evidence lists the manifest.
    const schemas = (buildOpenApiDocument(app).components?.schemas ?? {}) as Record<string, { properties?: Record<string, { description?: string }> }>;
    const descriptions = [
      schemas['AiDetectionFileResult']?.properties?.['noEvidence']?.description,
      schemas['AiDetectionResult']?.properties?.['noEvidence']?.description,
      schemas['V2OrderDetail']?.properties?.['aiNoEvidence']?.description,
    ];
    expect(descriptions.filter((d) => !/no finding was counted/.test(d ?? '') || /found anything/.test(d ?? ''))).toEqual([]);
  });

  it('says at the anti-AI strength that every layer is a request a crawler may ignore, not a barrier to training', () => {
    // docs/anti-ai.md: opt-out metadata, Content Credentials and headers state a refusal; nothing makes an image
    // unlearnable. A client choosing `high` from the schema alone read "opt-out watermark" as protection.
    const schemas = (buildOpenApiDocument(app).components?.schemas ?? {}) as Record<string, { properties?: Record<string, { description?: string }> }>;
    const strength = schemas['AntiAiOptionsDto']?.properties?.['strength']?.description ?? '';
    expect(strength).toMatch(/may ignore/);
    expect(strength).toMatch(/no strength makes an image unlearnable/);
  });

  it(`equals the committed ${OPENAPI_DOCUMENT_PATH} (run \`npm run sdk:generate\` when this fails)`, () => {
    const committed: unknown = JSON.parse(readFileSync(path.resolve(__dirname, '../../../..', OPENAPI_DOCUMENT_PATH), 'utf8'));
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument(app)))).toEqual(committed);
  });
});
