/**
 * The event and job subjects: events are `evt.<service>.<entity>.<past-tense>`; work items are
 * `job.<worker>.<kind>`. Payload types live next to their subject in the feature files of this library;
 * `catalog.ts` pairs each subject with its payload class (`Events`, `Jobs`), and call sites use those
 * declarations. Request/reply patterns (`<service>.<verb>`) are written only in `catalog.ts` (`Rpcs`).
 */
export const EventSubjects = {
  accountCreated: 'evt.gateway.account.created',
  creditsGranted: 'evt.gateway.credits.granted',
  apiKeyRevoked: 'evt.gateway.api-key.revoked',
  orderStatusChanged: 'evt.orders.order.status-changed',
  orderCompleted: 'evt.orders.order.completed',
  orderFailed: 'evt.orders.order.failed',
  fileUploaded: 'evt.uploads.file.uploaded',
  fileFailed: 'evt.uploads.file.failed',
  outputProcessing: 'evt.watermark.output.processing',
  outputCompleted: 'evt.watermark.output.completed',
  outputFailed: 'evt.watermark.output.failed',
  outputDelayed: 'evt.watermark.output.delayed',
  orderDelayed: 'evt.watermark.order.delayed',
  packageCompleted: 'evt.watermark.package.completed',
  extractCompleted: 'evt.watermark.extract.completed',
  antiAiOutputCompleted: 'evt.watermark.anti-ai-output.completed',
  antiAiOutputFailed: 'evt.watermark.anti-ai-output.failed',
  reportStatusChanged: 'evt.reports.report.status-changed',
  aiDetectionCompleted: 'evt.aidetect.detection.completed',
  aiDetectionFailed: 'evt.aidetect.detection.failed',
  testOrderRetentionEnded: 'evt.retention.test-order.retention-ended',
  accountErasureRequested: 'evt.gateway.account.erasure-requested',
  orderErasureRequested: 'evt.orders.order.erasure-requested',
} as const;

export const JobSubjects = {
  watermarkEmbed: 'job.watermark.embed',
  watermarkExtract: 'job.watermark.extract',
  watermarkPackage: 'job.watermark.package',
  watermarkAntiAi: 'job.watermark.anti-ai',
  uploadsFetch: 'job.uploads.fetch',
  reportsGenerate: 'job.reports.generate',
  aiDetect: 'job.aidetect.detect',
} as const;

/** Subject that MinIO's bucket notification target (and the local S3 bridge) publishes to. */
export const STORAGE_EVENTS_SUBJECT = 'storage.events';

/** Prefix of the subjects that hold messages a consumer gave up on (`parked.<durable>`). */
export const PARKED_SUBJECT_PREFIX = 'parked';

export interface StreamDefinition {
  name: string;
  subjects: string[];
  retention: 'limits' | 'workqueue';
  maxAgeSeconds: number;
  duplicateWindowSeconds: number;
  /**
   * Its size bound as a share of `NATS_STREAM_MAX_MIB` (JetStream reserves it on the file store). Every stream of
   * the platform has one; only the throwaway streams of tests leave it out (unbounded).
   */
  sizeShare?: number;
  /**
   * What a full stream does: `old` drops its oldest messages (their consumers are long done with them, or a
   * sweep settles the order they were for), `new` refuses the publish, which the outbox keeps and repeats.
   */
  discard?: 'old' | 'new';
}

export const Streams = {
  events: {
    name: 'EVENTS',
    subjects: ['evt.>'],
    retention: 'limits',
    maxAgeSeconds: 7 * 24 * 3600,
    duplicateWindowSeconds: 3600,
    sizeShare: 1,
    discard: 'old',
  },
  jobs: {
    name: 'JOBS',
    subjects: ['job.>'],
    retention: 'workqueue',
    maxAgeSeconds: 7 * 24 * 3600,
    duplicateWindowSeconds: 3600,
    // A job dropped would strand its order for hours: a full queue pushes back on the outboxes instead.
    sizeShare: 1,
    discard: 'new',
  },
  storage: {
    name: 'STORAGE_EVENTS',
    subjects: [STORAGE_EVENTS_SUBJECT],
    retention: 'limits',
    maxAgeSeconds: 7 * 24 * 3600,
    duplicateWindowSeconds: 120,
    // Filled by storage for every PUT to a presigned URL, which no rate limit sees; a notification dropped is
    // found again by the uploads service's reconciliation.
    sizeShare: 0.25,
    discard: 'old',
  },
  parked: {
    name: 'PARKED',
    subjects: [`${PARKED_SUBJECT_PREFIX}.>`],
    retention: 'limits',
    maxAgeSeconds: 30 * 24 * 3600,
    duplicateWindowSeconds: 120,
    sizeShare: 0.5,
    discard: 'old',
  },
} as const satisfies Record<string, StreamDefinition>;

export const ALL_STREAMS: StreamDefinition[] = Object.values(Streams);
