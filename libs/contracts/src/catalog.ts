import { AccountCreatedEvent, ApiKeyRevokedEvent, CreditsGrantedEvent } from './accounts';
import { AiDetectionCompletedEvent, AiDetectionFailedEvent, AiDetectionJob } from './ai-detection';
import { AiDetectionConfirmView, AiDetectionOrderCreatedView, ConfirmAiDetectionOrderCommand, CreateAiDetectionOrderCommand } from './ai-detection-orders';
import { AntiAiJob, AntiAiOutputCompletedEvent, AntiAiOutputFailedEvent } from './anti-ai';
import { AntiAiOrderCreatedView, AntiAiWithUrlsCreatedView, CreateAntiAiOrderCommand, CreateAntiAiWithUrlsCommand } from './anti-ai-orders';
import { CreateEmbedOrderCommand, DownloadQuery, DownloadView } from './embed-orders';
import { CreateExtractOrderCommand, ExtractCompletedEvent, ExtractJob } from './extract-orders';
import { defineEvent, defineJob, defineRpc } from './message-contracts';
import { OrderCompletedEvent, OrderFailedEvent, OrderStatusChangedEvent } from './order-events';
import { BatchResults } from './errors';
import { GetOrderQuery, GetOrdersQuery, WatermarkOrderView } from './orders';
import {
  GenerateReportJob,
  GetReportQuery,
  ReportContextQuery,
  ReportContextView,
  ReportStatusChangedEvent,
  ReportView,
  RequestReportCommand,
  ReportRpcPatterns,
  RequestReportResult,
} from './reports';
import { ExpireOrdersCommand, ExpireOrdersResult } from './retention';
import { EventSubjects, JobSubjects, RpcPatterns } from './subjects';
import {
  FetchSourceJob,
  FileFailedEvent,
  FileUploadedEvent,
  RecordTestUploadCommand,
  RegisterSlotsCommand,
  TestUploadView,
  UploadRpcPatterns,
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
  WebhookRpcPatterns,
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
} as const;

const MINUTE_MS = 60_000;

/**
 * Every job with its payload class (stream JOBS, work-queue retention) and the default deadline of one attempt
 * (generous backstops against a handler that never settles, well above the slowest legitimate run; the
 * steps inside have their own, tighter limits).
 */
export const Jobs = {
  watermarkEmbed: defineJob(JobSubjects.watermarkEmbed, EmbedJob, 15 * MINUTE_MS),
  watermarkExtract: defineJob(JobSubjects.watermarkExtract, ExtractJob, 10 * MINUTE_MS),
  watermarkPackage: defineJob(JobSubjects.watermarkPackage, PackageJob, 10 * MINUTE_MS),
  uploadsFetch: defineJob(JobSubjects.uploadsFetch, FetchSourceJob, 15 * MINUTE_MS),
  reportsGenerate: defineJob(JobSubjects.reportsGenerate, GenerateReportJob, 5 * MINUTE_MS),
  aiDetect: defineJob(JobSubjects.aiDetect, AiDetectionJob, 5 * MINUTE_MS),
  watermarkAntiAi: defineJob(JobSubjects.watermarkAntiAi, AntiAiJob, 10 * MINUTE_MS),
} as const;

/** Every request/reply pattern with its request class and response type. */
export const Rpcs = {
  ordersGet: defineRpc<WatermarkOrderView>()(RpcPatterns.ordersGet, GetOrderQuery),
  ordersGetMany: defineRpc<BatchResults<WatermarkOrderView>>()(RpcPatterns.ordersGetMany, GetOrdersQuery),
  ordersCreateEmbed: defineRpc<WatermarkOrderView>()(RpcPatterns.ordersCreateEmbed, CreateEmbedOrderCommand),
  ordersCreateAiDetection: defineRpc<AiDetectionOrderCreatedView>()(RpcPatterns.ordersCreateAiDetection, CreateAiDetectionOrderCommand),
  ordersConfirmAiDetection: defineRpc<AiDetectionConfirmView>()(RpcPatterns.ordersConfirmAiDetection, ConfirmAiDetectionOrderCommand),
  ordersCreateAntiAi: defineRpc<AntiAiOrderCreatedView>()(RpcPatterns.ordersCreateAntiAi, CreateAntiAiOrderCommand),
  ordersCreateAntiAiWithUrls: defineRpc<AntiAiWithUrlsCreatedView>()(RpcPatterns.ordersCreateAntiAiWithUrls, CreateAntiAiWithUrlsCommand),
  ordersCreateExtract: defineRpc<WatermarkOrderView>()(RpcPatterns.ordersCreateExtract, CreateExtractOrderCommand),
  ordersDownload: defineRpc<DownloadView>()(RpcPatterns.ordersDownload, DownloadQuery),
  ordersReportContext: defineRpc<ReportContextView>()(RpcPatterns.ordersReportContext, ReportContextQuery),
  ordersExpire: defineRpc<ExpireOrdersResult>()(RpcPatterns.ordersExpire, ExpireOrdersCommand),
  ordersV2CreateEmbed: defineRpc<V2EmbedOrderCreatedView>()(RpcPatterns.ordersV2CreateEmbed, CreateV2EmbedOrderCommand),
  ordersV2CreateExtract: defineRpc<V2ExtractOrderCreatedView>()(RpcPatterns.ordersV2CreateExtract, CreateV2ExtractOrderCommand),
  ordersV2Get: defineRpc<V2OrderDetailView>()(RpcPatterns.ordersV2Get, V2OrderQuery),
  ordersV2RefreshUrls: defineRpc<V2RefreshUrlsView>()(RpcPatterns.ordersV2RefreshUrls, V2OrderQuery),
  ordersV2StatsRecent: defineRpc<V2RecentStatsView>()(RpcPatterns.ordersV2StatsRecent, V2RecentStatsQuery),
  ordersV2DownloadUrls: defineRpc<V2DownloadUrlsView>()(RpcPatterns.ordersV2DownloadUrls, V2OrderQuery),
  uploadsRegisterSlots: defineRpc<UploadUrlsView>()(UploadRpcPatterns.registerSlots, RegisterSlotsCommand),
  uploadsUploadUrls: defineRpc<UploadUrlsView>()(UploadRpcPatterns.uploadUrls, UploadUrlsWithValidityQuery),
  uploadsRecordTestUpload: defineRpc<TestUploadView>()(UploadRpcPatterns.recordTestUpload, RecordTestUploadCommand),
  reportsRequest: defineRpc<RequestReportResult>()(ReportRpcPatterns.request, RequestReportCommand),
  reportsGet: defineRpc<ReportView>()(ReportRpcPatterns.get, GetReportQuery),
  webhooksCreate: defineRpc<CreatedWebhookView>()(WebhookRpcPatterns.create, CreateWebhookCommand),
  webhooksUpdate: defineRpc<WebhookView>()(WebhookRpcPatterns.update, UpdateWebhookCommand),
  webhooksList: defineRpc<WebhookView[]>()(WebhookRpcPatterns.list, ListWebhooksQuery),
  webhooksGet: defineRpc<WebhookView>()(WebhookRpcPatterns.get, WebhookRefQuery),
  webhooksDelete: defineRpc<DeletedWebhookView>()(WebhookRpcPatterns.delete, WebhookRefQuery),
  webhooksListEvents: defineRpc<WebhookEventPageView>()(WebhookRpcPatterns.listEvents, ListWebhookEventsQuery),
  webhooksRetryEvent: defineRpc<WebhookEventRetryView>()(WebhookRpcPatterns.retryEvent, RetryWebhookEventCommand),
  webhooksRetryFailed: defineRpc<WebhookRetryFailedView>()(WebhookRpcPatterns.retryFailed, RetryFailedWebhookEventsCommand),
} as const;
