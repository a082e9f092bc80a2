import { AccountCreatedEvent, AccountErasureRequestedEvent, ApiKeyRevokedEvent, CreditGrantQuery, CreditGrantView, CreditsGrantedEvent } from './accounts';
import { AiDetectionCompletedEvent, AiDetectionFailedEvent, AiDetectionJob } from './ai-detection';
import { AiDetectionConfirmView, AiDetectionOrderCreatedView, ConfirmAiDetectionOrderCommand, CreateAiDetectionOrderCommand } from './ai-detection-orders';
import { AntiAiJob, AntiAiOutputCompletedEvent, AntiAiOutputFailedEvent } from './anti-ai';
import { AntiAiOrderCreatedView, AntiAiWithUrlsCreatedView, CreateAntiAiOrderCommand, CreateAntiAiWithUrlsCommand } from './anti-ai-orders';
import { CreateEmbedOrderCommand, DownloadQuery, DownloadView } from './embed-orders';
import { CreateExtractOrderCommand, ExtractCompletedEvent, ExtractJob } from './extract-orders';
import { defineEvent, defineJob, defineRpc } from './message-contracts';
import { OrderCompletedEvent, OrderFailedEvent, OrderStatusChangedEvent, OrderType } from './order-events';
import { BatchResults, OrderFailureCode } from './errors';
import { GetOrderQuery, GetOrdersQuery, WatermarkOrderView } from './orders';
import { EraseOrderCommand, OrderErasureRequestedEvent, OrderErasureView } from './order-erasure';
import { OrderStepsView, OrderTimelineQuery, OrderTimelineView } from './order-timeline';
import {
  GenerateReportJob,
  GetReportQuery,
  ReportContextQuery,
  ReportContextView,
  ReportStatusChangedEvent,
  ReportType,
  ReportView,
  RequestReportCommand,
  RequestReportResult,
} from './reports';
import { ExpireOrdersCommand, ExpireOrdersResult, ExpirySchedulesPage, ExpirySchedulesQuery, FailedOrdersPage, FailedOrdersQuery, TestOrderRetentionEndedEvent } from './retention';
import { EventSubjects, JobSubjects } from './subjects';
import {
  FetchSourceJob,
  FileFailedEvent,
  FileUploadedEvent,
  KnownSlotsQuery,
  KnownSlotsView,
  RecordTestUploadCommand,
  RegisterSlotsCommand,
  TestUploadView,
  UploadUrlsView,
} from './uploads';
import {
  CreateV2EmbedOrderCommand,
  CreateV2ExtractOrderCommand,
  UploadUrlsWithValidityQuery,
  V2DownloadUrlsView,
  V2EmbedOrderCreatedView,
  V2ExtractOrderCreatedView,
  V2OrderDetailView,
  V2OrderQuery,
  V2RecentStatsQuery,
  V2RecentStatsView,
  V2RefreshUrlsView,
} from './v2';
import {
  EmbedJob,
  OrderDelayedEvent,
  OutputCompletedEvent,
  OutputDelayedEvent,
  OutputFailedEvent,
  OutputProcessingEvent,
  PackageCompletedEvent,
  PackageJob,
} from './watermark-jobs';
import {
  CreatedWebhookView,
  CreateWebhookCommand,
  DeletedWebhookView,
  ListWebhookEventsQuery,
  ListWebhooksQuery,
  RetryFailedWebhookEventsCommand,
  RetryWebhookEventCommand,
  UpdateWebhookCommand,
  WebhookEventPageView,
  WebhookEventRetryView,
  WebhookRefQuery,
  WebhookRetryFailedView,
  WebhookView,
} from './webhooks';

/** Every event with its payload class (stream EVENTS, `evt.<service>.<entity>.<past-tense>`). */
export const Events = {
  accountCreated: defineEvent(EventSubjects.accountCreated, AccountCreatedEvent),
  creditsGranted: defineEvent(EventSubjects.creditsGranted, CreditsGrantedEvent),
  apiKeyRevoked: defineEvent(EventSubjects.apiKeyRevoked, ApiKeyRevokedEvent),
  orderStatusChanged: defineEvent(EventSubjects.orderStatusChanged, OrderStatusChangedEvent),
  orderCompleted: defineEvent(EventSubjects.orderCompleted, OrderCompletedEvent),
  orderFailed: defineEvent(EventSubjects.orderFailed, OrderFailedEvent),
  fileUploaded: defineEvent(EventSubjects.fileUploaded, FileUploadedEvent),
  fileFailed: defineEvent(EventSubjects.fileFailed, FileFailedEvent),
  outputProcessing: defineEvent(EventSubjects.outputProcessing, OutputProcessingEvent),
  outputCompleted: defineEvent(EventSubjects.outputCompleted, OutputCompletedEvent),
  outputFailed: defineEvent(EventSubjects.outputFailed, OutputFailedEvent),
  outputDelayed: defineEvent(EventSubjects.outputDelayed, OutputDelayedEvent),
  orderDelayed: defineEvent(EventSubjects.orderDelayed, OrderDelayedEvent),
  packageCompleted: defineEvent(EventSubjects.packageCompleted, PackageCompletedEvent),
  extractCompleted: defineEvent(EventSubjects.extractCompleted, ExtractCompletedEvent),
  reportStatusChanged: defineEvent(EventSubjects.reportStatusChanged, ReportStatusChangedEvent),
  aiDetectionCompleted: defineEvent(EventSubjects.aiDetectionCompleted, AiDetectionCompletedEvent),
  aiDetectionFailed: defineEvent(EventSubjects.aiDetectionFailed, AiDetectionFailedEvent),
  antiAiOutputCompleted: defineEvent(EventSubjects.antiAiOutputCompleted, AntiAiOutputCompletedEvent),
  antiAiOutputFailed: defineEvent(EventSubjects.antiAiOutputFailed, AntiAiOutputFailedEvent),
  testOrderRetentionEnded: defineEvent(EventSubjects.testOrderRetentionEnded, TestOrderRetentionEndedEvent),
  accountErasureRequested: defineEvent(EventSubjects.accountErasureRequested, AccountErasureRequestedEvent),
  orderErasureRequested: defineEvent(EventSubjects.orderErasureRequested, OrderErasureRequestedEvent),
} as const;

const MINUTE_MS = 60_000;

/**
 * Every job with its payload class (stream JOBS, work-queue retention) and the default deadline of one attempt
 * (generous backstops against a handler that never settles, well above the slowest legitimate run; the
 * steps inside have their own, tighter limits).
 */
export const Jobs = {
  watermarkEmbed: defineJob(JobSubjects.watermarkEmbed, EmbedJob, 15 * MINUTE_MS, (job) => job.outputFileId),
  watermarkExtract: defineJob(JobSubjects.watermarkExtract, ExtractJob, 10 * MINUTE_MS),
  watermarkPackage: defineJob(JobSubjects.watermarkPackage, PackageJob, 10 * MINUTE_MS),
  uploadsFetch: defineJob(JobSubjects.uploadsFetch, FetchSourceJob, 15 * MINUTE_MS, (job) => job.fileId),
  reportsGenerate: defineJob(JobSubjects.reportsGenerate, GenerateReportJob, 5 * MINUTE_MS),
  aiDetect: defineJob(JobSubjects.aiDetect, AiDetectionJob, 5 * MINUTE_MS, (job) => job.fileId),
  watermarkAntiAi: defineJob(JobSubjects.watermarkAntiAi, AntiAiJob, 10 * MINUTE_MS, (job) => job.outputFileId),
} as const;

/**
 * Marks a request that may be sent again when its answer was lost (`RpcContract.idempotent`): every query, and
 * every creation or confirmation that carries the caller's idempotency key (a repeat answers the first outcome).
 * Not marked: commands whose repeat would act twice or answer differently (create or delete a webhook, retry
 * deliveries, register upload slots, expire orders, request a report, record a test upload, update a webhook).
 */
const REPEATABLE = { idempotent: true } as const;

/**
 * Every request/reply pattern (`<service>.<verb>`) with its request class and response type. The pattern strings
 * live only here: senders use `RpcClient.request(Rpcs.x, …)` and handlers `@RpcHandler(Rpcs.x)` (`@cp/messaging`),
 * so both ends are checked against the same declaration.
 */
export const Rpcs = {
  ordersGet: defineRpc<WatermarkOrderView>()('orders.get', GetOrderQuery, REPEATABLE),
  ordersGetMany: defineRpc<BatchResults<WatermarkOrderView>>()('orders.getMany', GetOrdersQuery, REPEATABLE),
  ordersCreateEmbed: defineRpc<WatermarkOrderView>()('orders.create-embed', CreateEmbedOrderCommand, REPEATABLE),
  ordersCreateAiDetection: defineRpc<AiDetectionOrderCreatedView>()('orders.create-ai-detection', CreateAiDetectionOrderCommand, REPEATABLE),
  ordersConfirmAiDetection: defineRpc<AiDetectionConfirmView>()('orders.confirm-ai-detection', ConfirmAiDetectionOrderCommand, REPEATABLE),
  ordersCreateAntiAi: defineRpc<AntiAiOrderCreatedView>()('orders.create-anti-ai', CreateAntiAiOrderCommand, REPEATABLE),
  ordersCreateAntiAiWithUrls: defineRpc<AntiAiWithUrlsCreatedView>()('orders.create-anti-ai-with-urls', CreateAntiAiWithUrlsCommand, REPEATABLE),
  ordersCreateExtract: defineRpc<WatermarkOrderView>()('orders.create-extract', CreateExtractOrderCommand, REPEATABLE),
  ordersDownload: defineRpc<DownloadView>()('orders.download', DownloadQuery, REPEATABLE),
  ordersReportContext: defineRpc<ReportContextView>()('orders.report-context', ReportContextQuery, REPEATABLE),
  ordersExpire: defineRpc<ExpireOrdersResult>()('orders.expire', ExpireOrdersCommand),
  ordersExpirySchedules: defineRpc<ExpirySchedulesPage>()('orders.expiry-schedules', ExpirySchedulesQuery, REPEATABLE),
  ordersFailedOrders: defineRpc<FailedOrdersPage>()('orders.failed-orders', FailedOrdersQuery, REPEATABLE),
  ordersV2CreateEmbed: defineRpc<V2EmbedOrderCreatedView>()('orders.v2-create-embed', CreateV2EmbedOrderCommand, REPEATABLE),
  ordersV2CreateExtract: defineRpc<V2ExtractOrderCreatedView>()('orders.v2-create-extract', CreateV2ExtractOrderCommand, REPEATABLE),
  ordersV2Get: defineRpc<V2OrderDetailView>()('orders.v2-get', V2OrderQuery, REPEATABLE),
  ordersV2RefreshUrls: defineRpc<V2RefreshUrlsView>()('orders.v2-refresh-urls', V2OrderQuery, REPEATABLE),
  ordersV2StatsRecent: defineRpc<V2RecentStatsView>()('orders.v2-stats-recent', V2RecentStatsQuery, REPEATABLE),
  ordersV2DownloadUrls: defineRpc<V2DownloadUrlsView>()('orders.v2-download-urls', V2OrderQuery, REPEATABLE),
  uploadsRegisterSlots: defineRpc<UploadUrlsView>()('uploads.register-slots', RegisterSlotsCommand),
  uploadsUploadUrls: defineRpc<UploadUrlsView>()('uploads.upload-urls', UploadUrlsWithValidityQuery, REPEATABLE),
  uploadsKnownSlots: defineRpc<KnownSlotsView>()('uploads.known-slots', KnownSlotsQuery, REPEATABLE),
  uploadsRecordTestUpload: defineRpc<TestUploadView>()('uploads.record-test-upload', RecordTestUploadCommand),
  reportsRequest: defineRpc<RequestReportResult>()('reports.request', RequestReportCommand),
  reportsGet: defineRpc<ReportView>()('reports.get', GetReportQuery, REPEATABLE),
  webhooksCreate: defineRpc<CreatedWebhookView>()('webhooks.create', CreateWebhookCommand),
  webhooksUpdate: defineRpc<WebhookView>()('webhooks.update', UpdateWebhookCommand),
  webhooksList: defineRpc<WebhookView[]>()('webhooks.list', ListWebhooksQuery, REPEATABLE),
  webhooksGet: defineRpc<WebhookView>()('webhooks.get', WebhookRefQuery, REPEATABLE),
  webhooksDelete: defineRpc<DeletedWebhookView>()('webhooks.delete', WebhookRefQuery),
  webhooksListEvents: defineRpc<WebhookEventPageView>()('webhooks.list-events', ListWebhookEventsQuery, REPEATABLE),
  webhooksRetryEvent: defineRpc<WebhookEventRetryView>()('webhooks.retry-event', RetryWebhookEventCommand),
  webhooksRetryFailed: defineRpc<WebhookRetryFailedView>()('webhooks.retry-failed', RetryFailedWebhookEventsCommand),
  // An order's timeline for operators (issue 33): each service answers its own steps; orders gathers them all.
  ordersOrderTimeline: defineRpc<OrderTimelineView>()('orders.order-timeline', OrderTimelineQuery, REPEATABLE),
  ordersEraseOrder: defineRpc<OrderErasureView>()('orders.erase-order', EraseOrderCommand),
  ordersCreditGrant: defineRpc<CreditGrantView>()('orders.credit-grant', CreditGrantQuery, REPEATABLE),
  uploadsOrderSteps: defineRpc<OrderStepsView>()('uploads.order-steps', OrderTimelineQuery, REPEATABLE),
  watermarkOrderSteps: defineRpc<OrderStepsView>()('watermark.order-steps', OrderTimelineQuery, REPEATABLE),
  aidetectOrderSteps: defineRpc<OrderStepsView>()('aidetect.order-steps', OrderTimelineQuery, REPEATABLE),
  reportsOrderSteps: defineRpc<OrderStepsView>()('reports.order-steps', OrderTimelineQuery, REPEATABLE),
  webhooksOrderSteps: defineRpc<OrderStepsView>()('webhooks.order-steps', OrderTimelineQuery, REPEATABLE),
} as const;

/** What every service may know about one order type; the rest lives in the type's folder of the orders service. */
export interface OrderTypeEntry {
  /** The report an order of this type can have (`POST /orders/{id}/report`); null: none. */
  reportType: ReportType | null;
  /**
   * The webhook `data` of a completed order whose event predates the order types' own webhook fields
   * (`OrderCompletedEvent.webhookData`): the file count and download, or the extract result. null: the type always
   * declared its fields.
   */
  legacyWebhookData: 'download' | 'extractResult' | null;
  /** Its completed webhook carries `downloadUrl`: the stored result, presigned at each attempt (null without one). */
  webhookDownloadUrl: boolean;
  /**
   * The worker whose input limit its files are held to (`WATERMARK_MAX_INPUT_BYTES`, `AI_DETECTION_MAX_INPUT_BYTES`)
   * and the code of a file over it. The uploads service applies it as soon as an upload lands (deletes the object,
   * fails the order), so a file the worker would refuse never waits in storage for retention.
   */
  inputLimit: { worker: InputLimitWorker; tooLargeCode: OrderFailureCode };
}

/** The workers that read uploaded inputs, each with its own `<PREFIX>_MAX_INPUT_BYTES`. */
export type InputLimitWorker = 'watermark' | 'aiDetection';

const WATERMARK_INPUT: OrderTypeEntry['inputLimit'] = { worker: 'watermark', tooLargeCode: OrderFailureCode.WATERMARK_FILE_TOO_LARGE };

/** The catalog of order types: reports, webhooks and uploads ask it instead of naming a type. */
export const OrderTypes: { readonly [T in OrderType]: OrderTypeEntry } = {
  watermarkEmbed: { reportType: null, legacyWebhookData: 'download', webhookDownloadUrl: true, inputLimit: WATERMARK_INPUT },
  // The processor makes an oversized extract input `unsupported`; refused at upload it fails the order like embed's.
  watermarkExtract: { reportType: 'watermarkDetection', legacyWebhookData: 'extractResult', webhookDownloadUrl: false, inputLimit: WATERMARK_INPUT },
  aiDetection: {
    reportType: 'aiDetection',
    legacyWebhookData: null,
    webhookDownloadUrl: false,
    inputLimit: { worker: 'aiDetection', tooLargeCode: OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE },
  },
  antiAi: { reportType: null, legacyWebhookData: null, webhookDownloadUrl: true, inputLimit: WATERMARK_INPUT },
};

/** The catalog entry of an order type read from a message or a row; null for a name the catalog does not know. */
export function orderTypeEntry(orderType: string): OrderTypeEntry | null {
  return Object.hasOwn(OrderTypes, orderType) ? OrderTypes[orderType as OrderType] : null;
}
