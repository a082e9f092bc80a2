import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * The response schemas that decorators cannot say (issue 31): every other one is generated from the view
 * classes of `@cp/contracts` (openapi-views.ts). Kept by hand, each for its reason:
 * - `CreatedWebhook`, `V2ExtractFile`: `allOf` of a generated schema and the extra fields; decorators on a
 *   subclass would publish a flattened copy of the parent's fields instead.
 * - `DeletedWebhook` (`deleted: [true]`) and `V2ExtractFile` (`sequence: [1]`): enumerations that are not strings,
 *   which @nestjs/swagger always types as `number`.
 * - `V2ExtractOrderCreated`: its fields refer to `V2ExtractFile`, which has no class to point a decorator at.
 * `openapi-views.spec.ts` compares these with their views as it compares the generated ones.
 */
const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

export const OPENAPI_SCHEMAS: Record<string, SchemaObject> = {
  CreatedWebhook: {
    allOf: [
      ref('Webhook'),
      {
        type: 'object',
        required: ['secret'],
        properties: {
          secret: { type: 'string', description: 'signing secret, shown only in this response', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        },
      },
    ],
  },
  DeletedWebhook: {
    type: 'object',
    required: ['id', 'deleted'],
    properties: { id: { type: 'integer', example: 7 }, deleted: { type: 'boolean', enum: [true], example: true } },
  },
  V2ExtractFile: {
    allOf: [
      ref('V2CreatedFile'),
      {
        type: 'object',
        required: ['role', 'sequence'],
        properties: { role: { type: 'string', enum: ['watermarked', 'original'], example: 'watermarked' }, sequence: { type: 'integer', enum: [1], example: 1 } },
      },
    ],
  },
  V2ExtractOrderCreated: {
    type: 'object',
    required: ['orderName', 'orderId', 'file'],
    properties: {
      orderName: { type: 'string', example: 'found-online.jpg' },
      orderId: { type: 'string', example: '43' },
      file: ref('V2ExtractFile'),
      originalFile: { allOf: [ref('V2ExtractFile')], description: 'present only when `includeOriginal` was true' },
    },
  },
};
