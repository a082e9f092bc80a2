import { AI_DETECTION_VERDICTS, ORDER_STATUSES, ORDER_TYPES, REPORT_LOCALES, REPORT_TYPES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '@cp/contracts';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Response schemas of the public API (spec section 2), in `components.schemas`. The views are TypeScript
 * interfaces in `@cp/contracts` (no runtime metadata), so their published shape is written here once;
 * the e2e suite checks real responses against it through the SDK's generated types.
 */
const dateTime = (example: string): SchemaObject => ({ type: 'string', format: 'date-time', example });
const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true });
const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

const aiVerdict = (description: string): SchemaObject => ({ type: 'string', enum: [...AI_DETECTION_VERDICTS], description, example: 'cannot_be_determined' });
const VERDICT_MEANING = 'what a person can act on: a side only when the evidence reaches a likely_* band; no evidence or weak claims: cannot_be_determined (docs/api-decisions.md)';

export const OPENAPI_SCHEMAS: Record<string, SchemaObject> = {
  Error: {
    type: 'object',
    description: 'Every error response (spec 7). `code` is public and stable; no internal message is ever returned.',
    required: ['code'],
    properties: { code: { type: 'string', example: 'VALIDATION_FAILED' } },
  },
  InputFile: {
    type: 'object',
    description: 'Input file entry (spec 2.2).',
    required: ['fileId', 'uploadUrl'],
    properties: {
      fileId: { type: 'string', example: '1001' },
      uploadUrl: nullable({
        type: 'string',
        format: 'uri',
        description:
          'Presigned URL for `PUT`, valid 900 seconds; only while the order is `pending` and the file waits for upload. `null` for files given by `originalFileUrl`, uploaded files, failed and expired orders.',
        example: 'http://127.0.0.1:9000/cp-inputs/1/42/1001/photo.jpg?X-Amz-Expires=900&X-Amz-Signature=3f1a9c',
      }),
    },
  },
  Output: {
    type: 'object',
    description: 'Embed output, one per watermark text (spec 2.3).',
    required: ['fileId', 'inputFileId', 'outputIndex', 'watermarkText', 'status', 'mediaKind'],
    properties: {
      fileId: { type: 'string', pattern: '^[0-9]+-[0-9]+$', example: '1001-0' },
      inputFileId: { type: 'string', example: '1001' },
      outputIndex: { type: 'integer', minimum: 0, example: 0 },
      watermarkText: { type: 'string', example: 'recipient-0042' },
      status: { type: 'string', enum: ['pending', 'queued', 'processing', 'completed', 'failed', 'retry_required'], example: 'completed' },
      mediaKind: { type: 'string', enum: ['image', 'pdf'], example: 'image' },
    },
  },
  ExtractResult: {
    type: 'object',
    description: 'Extract result summary (spec 2.4).',
    required: ['detectionStatus', 'reportSupported', 'watermarkText'],
    properties: {
      detectionStatus: {
        type: 'string',
        enum: ['detected', 'not_detected', 'inconclusive', 'unsupported', 'error'],
        description:
          '`detected`: watermark found; `not_detected`: fully checked, none found; `inconclusive`: a candidate below the confidence threshold; `unsupported`: input cannot be processed (credit refunded); `error`: detection failed, not the same as no watermark (credit refunded).',
        example: 'detected',
      },
      reportSupported: { type: 'boolean', description: '`false` for images captured from a PDF', example: true },
      watermarkText: nullable({
        type: 'string',
        description: "Only when detected, embedded by the caller's own account and exactly one issuance record matches.",
        example: 'recipient-0042',
      }),
    },
  },
  OrderReportEntry: {
    type: 'object',
    required: ['locale', 'status'],
    properties: {
      locale: { type: 'string', enum: [...REPORT_LOCALES], example: 'ko-KR' },
      status: { type: 'string', enum: ['queued', 'processing', 'completed', 'failed'], example: 'completed' },
    },
  },
  WatermarkOrder: {
    type: 'object',
    description: 'Watermark order, v3 (spec 2.1).',
    required: ['orderId', 'status', 'processingDelayed', 'expiresAt', 'files', 'outputs', 'result', 'reports'],
    properties: {
      orderId: { type: 'string', pattern: '^[0-9]{1,20}$', example: '42' },
      status: { type: 'string', enum: [...ORDER_STATUSES], example: 'pending' },
      processingDelayed: { type: 'boolean', description: 'automatic retries are exhausted; the order stays `inProgress`', example: false },
      expiresAt: nullable({ ...dateTime('2026-12-23T10:00:00.000Z'), description: 'after it, downloads and reports give `ORDER_EXPIRED`' }),
      files: { type: 'array', items: ref('InputFile'), description: 'request order; for extract orders index 0 is the original, 1 the file to inspect' },
      outputs: { type: 'array', items: ref('Output'), description: 'one per watermark text; empty for extract orders' },
      result: { type: 'object', allOf: [ref('ExtractResult')], nullable: true, description: '`null` for embed orders and until the result is ready' },
      reports: { type: 'array', items: ref('OrderReportEntry') },
      detection: { type: 'object', allOf: [ref('AiDetectionResult')], nullable: true, description: 'AI detection orders only; `null` until processed' },
    },
  },
  Download: {
    type: 'object',
    description: 'Download resource (spec 2.9): one file, or a ZIP `<orderId>-watermarked.zip` for two or more outputs.',
    required: ['downloadUrl', 'expiresInSeconds'],
    properties: {
      downloadUrl: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-outputs/1/42/42-watermarked.zip?X-Amz-Expires=300&X-Amz-Signature=3f1a9c' },
      expiresInSeconds: { type: 'integer', example: 300 },
    },
  },
  Report: {
    type: 'object',
    description: 'Report resource (spec 2.6). Every read issues a new `download.url`.',
    required: ['orderId', 'reportType', 'locale', 'status', 'download', 'failure'],
    properties: {
      orderId: { type: 'string', example: '43' },
      reportType: { type: 'string', enum: [...REPORT_TYPES], example: REPORT_TYPES[0] },
      locale: { type: 'string', enum: [...REPORT_LOCALES], example: 'ko-KR' },
      status: { type: 'string', enum: ['queued', 'processing', 'completed', 'failed'], example: 'completed' },
      download: nullable({
        type: 'object',
        required: ['url', 'expiresInSeconds'],
        properties: {
          url: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-reports/1/43/ko-KR.pdf?X-Amz-Expires=300&X-Amz-Signature=3f1a9c' },
          expiresInSeconds: { type: 'integer', example: 300 },
        },
      }),
      failure: nullable({
        type: 'object',
        required: ['code', 'retryable'],
        properties: {
          code: { type: 'string', enum: ['REPORT_GENERATION_FAILED', 'REPORT_NOT_AVAILABLE'], example: 'REPORT_GENERATION_FAILED' },
          retryable: { type: 'boolean', description: '`true` when requesting the report again starts a new attempt (watermark reports: `false` after 3 failed attempts)', example: true },
        },
      }),
    },
  },
  TestUpload: {
    type: 'object',
    required: ['fileId', 'size'],
    properties: { fileId: { type: 'string', example: '1001' }, size: { type: 'integer', description: 'bytes received (and discarded)', example: 52311 } },
  },
  Webhook: {
    type: 'object',
    description: 'Webhook resource (spec 2.8), never with its secret.',
    required: ['id', 'name', 'url', 'isActive', 'updatedAt'],
    properties: {
      id: { type: 'integer', example: 7 },
      name: { type: 'string', example: 'orders to the CMS' },
      url: { type: 'string', format: 'uri', example: 'https://hooks.example.com/content-protection' },
      isActive: { type: 'boolean', example: true },
      updatedAt: dateTime('2026-11-23T10:00:00.000Z'),
    },
  },
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
  WebhookEvent: {
    type: 'object',
    description: 'One delivery event of a webhook.',
    required: ['id', 'eventId', 'eventType', 'orderId', 'status', 'attempts', 'lastStatusCode', 'error', 'createdAt', 'lastAttemptAt', 'nextAttemptAt'],
    properties: {
      id: { type: 'integer', example: 1201 },
      eventId: { type: 'string', format: 'uuid', example: '0b8e4d02-5c55-4d4e-9a55-4f7f4b8a9b0e' },
      eventType: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES], example: 'order.watermarkEmbed.completed' },
      orderId: { type: 'string', example: '42' },
      status: { type: 'string', enum: [...WEBHOOK_DELIVERY_STATUSES], example: 'SUCCESS' },
      attempts: { type: 'integer', example: 1 },
      lastStatusCode: nullable({ type: 'integer', example: 200 }),
      error: nullable({ type: 'string', example: 'timeout after 5000 ms' }),
      createdAt: dateTime('2026-11-23T10:00:00.000Z'),
      lastAttemptAt: nullable(dateTime('2026-11-23T10:00:01.000Z')),
      nextAttemptAt: nullable(dateTime('2026-11-23T10:30:01.000Z')),
    },
  },
  WebhookEventPage: {
    type: 'object',
    required: ['items', 'page', 'limit', 'total'],
    properties: {
      items: { type: 'array', items: ref('WebhookEvent') },
      page: { type: 'integer', example: 1 },
      limit: { type: 'integer', example: 20 },
      total: { type: 'integer', example: 1 },
    },
  },
  WebhookEventRetry: {
    type: 'object',
    description: 'Outcome of the one delivery attempt made by the retry (snake_case as published, spec 4.16).',
    required: ['event_id', 'success', 'status_code', 'status', 'error'],
    properties: {
      event_id: { type: 'string', example: '1201' },
      success: { type: 'boolean', example: false },
      status_code: nullable({ type: 'integer', example: 500 }),
      status: { type: 'string', enum: [...WEBHOOK_DELIVERY_STATUSES], example: 'FAILED' },
      error: nullable({ type: 'string', example: 'receiver answered 500' }),
    },
  },
  WebhookRetryFailed: {
    type: 'object',
    required: ['fromDate', 'toDate', 'retried'],
    properties: {
      fromDate: dateTime('2026-11-16T00:00:00.000Z'),
      toDate: dateTime('2026-11-23T00:00:00.000Z'),
      retried: { type: 'integer', example: 3 },
    },
  },
  V2CreatedFile: {
    type: 'object',
    required: ['fileId', 'fileName', 'fileKey', 'fileFormat', 'fileType'],
    properties: {
      fileId: { type: 'integer', example: 1001 },
      fileName: { type: 'string', example: 'photo.jpg' },
      uploadUrl: nullable({ type: 'string', format: 'uri', description: 'only for upload files', example: 'http://127.0.0.1:9000/cp-inputs/1/42/1001/photo.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' }),
      originalFileUrl: { type: 'string', format: 'uri', description: 'only for URL files', example: 'https://example.com/photo.jpg' },
      fileKey: { type: 'string', example: '1/42/1001/photo.jpg' },
      fileFormat: { type: 'string', enum: ['JPG', 'PNG', 'WEBP', 'BMP', 'TIFF', 'PDF'], example: 'JPG' },
      fileType: { type: 'string', enum: ['IMG', 'DOCUMENT'], example: 'IMG' },
    },
  },
  V2EmbedOrderCreated: {
    type: 'object',
    required: ['orderName', 'orderId', 'status', 'files'],
    properties: {
      orderName: { type: 'string', example: 'photo.jpg' },
      orderId: { type: 'string', example: '42' },
      status: { type: 'string', enum: ['pending'], example: 'pending' },
      files: { type: 'array', items: ref('V2CreatedFile') },
    },
  },
  AiDetectionOrderCreated: {
    type: 'object',
    required: ['orderId', 'status', 'files'],
    properties: {
      orderId: { type: 'string', example: '46' },
      status: { type: 'string', enum: ['pending'], description: 'pending until `POST /api/v2/orders/ai-detection/confirm`', example: 'pending' },
      files: { type: 'array', items: ref('V2CreatedFile') },
    },
  },
  AiDetectionConfirm: {
    type: 'object',
    required: ['orderId', 'status'],
    properties: {
      orderId: { type: 'string', example: '46' },
      status: { type: 'string', enum: [...ORDER_STATUSES], description: '`inProgress` once the analysis started; the current state on a repeated key', example: 'inProgress' },
    },
  },
  AiDetectionEvidence: {
    type: 'object',
    required: ['signal', 'finding', 'description', 'direction', 'weight', 'details'],
    properties: {
      signal: { type: 'string', enum: ['c2pa', 'metadata', 'sdWatermark', 'classifier'], example: 'c2pa' },
      finding: { type: 'string', example: 'c2pa.ai_source_type' },
      description: { type: 'string', example: 'A valid Content Credentials manifest declares trainedAlgorithmicMedia.' },
      direction: { type: 'string', enum: ['ai', 'real', 'neutral'], example: 'ai' },
      weight: { type: 'number', description: 'log-odds this finding added (0: reported, not counted)', example: 4 },
      details: { type: 'object', additionalProperties: true },
      provenance: { type: 'array', description: 'Content Credentials findings only: the chain from the file\'s own manifest through its ingredients', items: ref('AiDetectionProvenanceStep') },
    },
  },
  AiDetectionProvenanceStep: {
    type: 'object',
    required: ['label', 'depth', 'relationship', 'title', 'signer', 'issuer', 'signedAt', 'signerTrusted', 'timeStampTrusted', 'claimGenerator', 'actions', 'digitalSourceType'],
    properties: {
      label: { type: 'string', example: 'urn:c2pa:b8660177-2926-4ce8-ac44-0e781cb080a1' },
      depth: { type: 'integer', minimum: 0, description: '0: the file\'s own manifest', example: 0 },
      relationship: { type: 'string', description: '`active`, or the ingredient relationship (`parentOf`, `componentOf`, `inputTo`)', example: 'active' },
      title: nullable({ type: 'string', example: 'image.png' }),
      signer: nullable({ type: 'string', description: 'common name of the signing certificate (the file\'s text)', example: 'Example Generator signer' }),
      issuer: nullable({ type: 'string', example: 'Example CA' }),
      signedAt: nullable({ type: 'string', description: 'time of the signature\'s time stamp, when it has one', example: null }),
      signerTrusted: { type: 'boolean', description: 'c2pa-rs found the signer under an anchor of the C2PA Trust List (false otherwise: fail closed)', example: false },
      timeStampTrusted: nullable({ type: 'boolean', example: null }),
      claimGenerator: nullable({ type: 'string', example: 'Example Generator 2.1' }),
      actions: { type: 'array', items: { type: 'string' }, example: ['c2pa.created'] },
      digitalSourceType: nullable({ type: 'string', example: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' }),
    },
  },
  AiDetectionFileResult: {
    type: 'object',
    required: ['fileId', 'probability', 'category', 'verdict', 'noEvidence', 'statement', 'evidence', 'heatmapNote', 'images'],
    properties: {
      fileId: { type: 'string', example: '101' },
      probability: { type: 'number', minimum: 0, maximum: 1, example: 0.5 },
      category: { type: 'string', enum: ['likely_real', 'uncertain_real', 'uncertain_ai', 'likely_ai'], example: 'uncertain_ai' },
      verdict: aiVerdict(VERDICT_MEANING),
      noEvidence: { type: 'boolean', description: 'no signal found anything: "cannot be determined: no evidence"', example: true },
      statement: { type: 'string', example: 'Cannot be determined: no provenance or generator evidence was found.' },
      evidence: { type: 'array', items: ref('AiDetectionEvidence') },
      heatmapNote: nullable({ type: 'string', example: 'Only file-level evidence: no heatmap is drawn.' }),
      images: ref('AiDetectionImageUrls'),
    },
  },
  AiDetectionImageUrls: {
    type: 'object',
    description: 'Presigned on each read, valid 1 hour; `null` when absent (test keys, no regional evidence) and once the order expired.',
    required: ['originalUrl', 'thumbnailUrl', 'heatmapUrl', 'overlayUrl'],
    properties: {
      originalUrl: nullable({ type: 'string', format: 'uri', description: 'WebP copy with the longer side at most 1600 px when the input is larger, else the original input', example: 'http://127.0.0.1:9000/cp-outputs/1/46/ai-detection/101/preview.webp?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' }),
      thumbnailUrl: nullable({ type: 'string', format: 'uri', description: 'WebP within 740×400, aspect ratio kept', example: 'http://127.0.0.1:9000/cp-outputs/1/46/ai-detection/101/thumbnail.webp?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' }),
      heatmapUrl: nullable({ type: 'string', format: 'uri', description: 'WebP, longer side at most 1600 px; only with `generateHeatmap` and per-region evidence', example: 'http://127.0.0.1:9000/cp-outputs/1/46/ai-detection/101/heatmap.webp?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' }),
      overlayUrl: nullable({ type: 'string', format: 'uri', description: 'the heatmap blended over the image; only with `generateOverlay` and per-region evidence', example: null }),
    },
  },
  AiDetectionResult: {
    type: 'object',
    required: ['probability', 'category', 'verdict', 'noEvidence', 'options', 'files'],
    properties: {
      probability: { type: 'number', minimum: 0, maximum: 1, description: 'the highest over the order\'s images', example: 0.5 },
      category: { type: 'string', enum: ['likely_real', 'uncertain_real', 'uncertain_ai', 'likely_ai'], description: 'spec 2.7 thresholds: < 0.25, < 0.5, < 0.75, ≥ 0.75', example: 'uncertain_ai' },
      verdict: aiVerdict(VERDICT_MEANING),
      noEvidence: { type: 'boolean', description: 'no signal found anything in the headline image', example: true },
      options: { type: 'object', required: ['generateHeatmap', 'generateOverlay'], properties: { generateHeatmap: { type: 'boolean' }, generateOverlay: { type: 'boolean' } } },
      files: { type: 'array', items: ref('AiDetectionFileResult') },
    },
  },
  AntiAiOrderCreated: {
    type: 'object',
    required: ['orderName', 'orderId', 'status', 'files'],
    properties: {
      orderName: { type: 'string', example: 'spring-catalogue' },
      orderId: { type: 'string', example: '44' },
      status: { type: 'string', enum: ['pending', 'inProgress'], description: '`pending` until every file is uploaded or fetched', example: 'pending' },
      files: { type: 'array', items: ref('V2CreatedFile') },
    },
  },
  AntiAiWithUrlsCreated: {
    type: 'object',
    required: ['orderName', 'orderId', 'status'],
    properties: {
      orderName: { type: 'string', example: 'anti-ai-45' },
      orderId: { type: 'string', example: '45' },
      status: { type: 'string', enum: ['inProgress'], example: 'inProgress' },
    },
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
  V2OrderDetail: {
    type: 'object',
    description: 'v2 order detail (spec 2.7, deprecated).',
    required: ['orderId', 'orderName', 'type', 'channel', 'status', 'fileCount', 'thumbnailImageUrl', 'createdAt', 'updatedAt', 'expiresAt', 'errors'],
    properties: {
      orderId: { type: 'string', example: '42' },
      orderName: { type: 'string', example: 'photo.jpg' },
      type: { type: 'string', enum: [...ORDER_TYPES], example: ORDER_TYPES[0] },
      channel: { type: 'string', enum: ['api', 'web'], example: 'api' },
      status: { type: 'string', enum: [...ORDER_STATUSES], example: 'complete' },
      fileCount: { type: 'integer', example: 1 },
      thumbnailImageUrl: nullable({
        type: 'string',
        format: 'uri',
        description:
          'presigned 1 hour, null once expired. antiAi and aiDetection: WebP within 740×400 (aspect ratio kept) once made, else the first input image; watermark orders: the first input image (null for PDFs and test keys)',
        example: 'http://127.0.0.1:9000/cp-outputs/1/42/1001-0.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c',
      }),
      createdAt: dateTime('2026-11-23T10:00:00.000Z'),
      updatedAt: dateTime('2026-11-23T10:00:02.000Z'),
      expiresAt: dateTime('2026-12-23T10:00:00.000Z'),
      errors: nullable({
        type: 'object',
        required: ['errorCode', 'errorMessage'],
        properties: { errorCode: { type: 'string', example: 'ORDER_TIMEOUT' }, errorMessage: { type: 'string', example: '12시간 안에 파일 업로드가 완료되지 않아 주문이 실패했습니다.' } },
      }),
      statusCode: {
        type: 'string',
        enum: ['detected', 'undetected', 'likely_real', 'uncertain_real', 'uncertain_ai', 'likely_ai'],
        description: 'watermarkExtract: detected/undetected; aiDetection: the category of the probability',
        example: 'detected',
      },
      aiProbability: { type: 'number', minimum: 0, maximum: 1, description: 'aiDetection only, once processed', example: 0.5 },
      aiVerdict: aiVerdict('aiDetection only, once processed: the verdict of the headline image; `statusCode` keeps the spec category of its probability'),
      aiNoEvidence: { type: 'boolean', description: 'aiDetection only, once processed: no signal found anything in the headline image', example: true },
      aiDetectionOptions: { type: 'object', description: 'aiDetection only: the options given at creation', required: ['generateHeatmap', 'generateOverlay'], properties: { generateHeatmap: { type: 'boolean' }, generateOverlay: { type: 'boolean' } } },
      originalImageUrl: nullable({ type: 'string', format: 'uri', description: 'aiDetection only, once processed: the headline image (highest probability), presigned 1 hour; a WebP copy with the longer side at most 1600 px, else the original', example: 'http://127.0.0.1:9000/cp-inputs/1/46/101/photo.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' }),
      heatmapImageUrl: nullable({ type: 'string', format: 'uri', description: 'aiDetection only, once processed: the headline image\'s heatmap (WebP, longer side at most 1600 px), presigned 1 hour; null without `generateHeatmap` or per-region evidence', example: null }),
      overlayImageUrl: nullable({ type: 'string', format: 'uri', description: 'aiDetection only, once processed: the heatmap blended over the image, same rules', example: null }),
      watermarkTexts: { type: 'array', items: { type: 'string' }, description: 'watermarkEmbed only', example: ['recipient-0042'] },
      extractedWatermarkText: nullable({ type: 'string', description: 'watermarkExtract only', example: 'recipient-0042' }),
    },
  },
  V2RefreshUrls: {
    type: 'object',
    required: ['files'],
    properties: {
      files: {
        type: 'array',
        items: {
          type: 'object',
          required: ['fileId', 'fileName', 'uploadUrl', 'fileKey'],
          properties: {
            fileId: { type: 'string', example: '1001' },
            fileName: { type: 'string', example: 'photo.jpg' },
            uploadUrl: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-inputs/1/42/1001/photo.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' },
            fileKey: { type: 'string', example: '1/42/1001/photo.jpg' },
          },
        },
      },
    },
  },
  V2RecentStats: {
    type: 'object',
    required: ['dailyStats', 'domain', 'ticks'],
    properties: {
      dailyStats: {
        type: 'array',
        items: {
          type: 'object',
          required: ['usageDate', 'usageCount'],
          properties: { usageDate: { type: 'string', format: 'date', example: '2026-11-23' }, usageCount: { type: 'integer', example: 4 } },
        },
      },
      domain: { type: 'array', items: { type: 'number' }, example: [0, 5] },
      ticks: { type: 'array', items: { type: 'number' }, example: [0, 1, 2, 3, 4, 5] },
    },
  },
  V2DownloadUrls: {
    type: 'object',
    required: ['orderId', 'expiresInSeconds', 'expiresAt', 'files', 'archiveUrl'],
    properties: {
      orderId: { type: 'string', example: '42' },
      expiresInSeconds: { type: 'integer', example: 3600 },
      expiresAt: dateTime('2026-11-23T11:00:00.000Z'),
      files: {
        type: 'array',
        items: {
          type: 'object',
          required: ['fileId', 'inputFileId', 'fileName', 'downloadUrl'],
          properties: {
            fileId: { type: 'string', example: '1001-0' },
            inputFileId: { type: 'string', example: '1001' },
            fileName: { type: 'string', example: 'photo-watermarked-1001-0.jpg' },
            downloadUrl: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-outputs/1/42/1001-0.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' },
          },
        },
      },
      archiveUrl: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-outputs/1/42/42-watermarked.zip?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' },
    },
  },
};
