import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, Matches, Min } from 'class-validator';
import { OrderScoped } from './accounts';
import type { DetectionEvidenceView } from './extract-orders';
import { DetectionStatus, KeyModeLike, OrderStatus, REPORT_LOCALES, REPORT_STATUSES, ReportLocale, ReportStatus } from './order-values';
import { ExtractResultView } from './orders';
import type { AiDetectionCategory, AiDetectionVerdict } from './ai-detection';
import type { AiDetectionAnalysis } from './ai-detection-orders';
import { ExaminedBytes, StoredObjectRef, WatermarkOrderType } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';


/** `evt.reports.report.status-changed`: orders keeps `reports[]` of the order view from these. */
export class ReportStatusChangedEvent {
  static readonly subject = EventSubjects.reportStatusChanged;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @IsIn(REPORT_LOCALES)
  locale!: ReportLocale;

  @IsIn(['queued', 'processing', 'completed', 'failed'])
  status!: ReportStatus;

  /** A later change wins, whatever order the events arrive in. */
  @IsISO8601()
  changedAt!: string;
}

/** `orders.report-context`: what a report is made from (only for the caller's own order). */
export class ReportContextQuery extends OrderScoped {}

export interface ReportContextFile {
  role: 'original' | 'inspected' | 'input';
  fileName: string;
  size: number | null;
  bucket: string;
  key: string;
  /** The bytes the processor examined (null: not recorded, for orders processed before it was, and test orders). */
  examined?: ExaminedBytes | null;
}

export interface ReportContextView {
  orderId: string;
  orderName: string;
  orderType: WatermarkOrderType;
  apiVersion: 'v2' | 'v3';
  mode: KeyModeLike;
  status: OrderStatus;
  /** True once the retention period has ended (files deleted or about to be). */
  expired: boolean;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string;
  result: ExtractResultView | null;
  /** How the detection was reached; null for test orders' simulated results. */
  confidence: number | null;
  method: string | null;
  /** What the detection rests on; absent for results recorded before it existed and for simulated results. */
  evidence?: DetectionEvidenceView | null;
  detectionStatus: DetectionStatus | null;
  files: ReportContextFile[];
  /** AI detection orders, once processed: what their report prints (null otherwise). */
  aiDetection?: AiDetectionReportContext | null;
}

/** One analysed image of an AI detection order, as its report prints it. */
export interface AiDetectionReportFile extends AiDetectionAnalysis {
  fileName: string;
  /** The input (hashed and previewed by the reports service). */
  input: ReportContextFile;
  /** The heatmap the detector drew (WebP), when asked for and per-region evidence existed. */
  heatmap: StoredObjectRef | null;
}

export interface AiDetectionReportContext {
  probability: number;
  category: AiDetectionCategory;
  verdict: AiDetectionVerdict;
  noEvidence: boolean;
  /** Test keys: a simulated result, no analysis. */
  simulated: boolean;
  files: AiDetectionReportFile[];
}

/** `job.reports.generate` goes to the JOBS work queue (it captures `job.>`). */
export const REPORT_GENERATE_JOB_SUBJECT = JobSubjects.reportsGenerate;

/** The kinds of report (spec 4.7/4.8); which order type has which is the type's to say. */
export const REPORT_TYPES = ['watermarkDetection', 'aiDetection'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_FAILURE_CODES = ['REPORT_GENERATION_FAILED', 'REPORT_NOT_AVAILABLE'] as const;
export type ReportFailureCode = (typeof REPORT_FAILURE_CODES)[number];

/** Report download URLs are valid this long (spec 2.6, section 8). */
export const REPORT_DOWNLOAD_EXPIRY_SECONDS = 300;

/** Body of `POST /api/v3/orders/{orderId}/reports`. */
export class RequestReportBody {
  @ApiProperty({ enum: REPORT_LOCALES, example: 'ko-KR' })
  @IsIn(REPORT_LOCALES)
  locale!: ReportLocale;
}

/** `reports.request`: create a report for the caller's order and locale, or return the current one. */
export class RequestReportCommand extends OrderScoped {
  @IsIn(REPORT_LOCALES)
  locale!: ReportLocale;
}

/** `reports.get`: the report resource of spec 2.6 with a fresh download URL. */
export class GetReportQuery extends RequestReportCommand {}

/** Report resource (spec 2.6). */
@ApiSchema({ name: 'Report', description: 'Report resource (spec 2.6). Every read issues a new `download.url`.' })
export class ReportView {
  @ApiProperty({ example: '43' })
  orderId!: string;
  @ApiProperty({ enum: [...REPORT_TYPES], example: REPORT_TYPES[0] })
  reportType!: ReportType;
  @ApiProperty({ enum: [...REPORT_LOCALES], example: 'ko-KR' })
  locale!: ReportLocale;
  @ApiProperty({ enum: [...REPORT_STATUSES], example: 'completed' })
  status!: ReportStatus;
  /** Only when `completed`: a presigned URL, new on every call. */
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    required: ['url', 'expiresInSeconds', 'sha256'],
    properties: {
      url: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-reports/1/43/ko-KR.pdf?X-Amz-Expires=300&X-Amz-Signature=3f1a9c' },
      expiresInSeconds: { type: 'integer', example: 300 },
      sha256: {
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
        description:
          'SHA-256 of the PDF the service stored, kept with the report record (the report says so): the downloaded file, or a copy filed later, can be checked against it',
        example: '9f2c6d0b3e5a7184c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f708192',
      },
    },
  })
  download!: { url: string; expiresInSeconds: number; sha256: string } | null;
  /** Only when `failed`: `retryable` says whether POSTing again starts a new attempt. */
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    required: ['code', 'retryable'],
    properties: {
      code: { type: 'string', enum: [...REPORT_FAILURE_CODES], example: 'REPORT_GENERATION_FAILED' },
      retryable: {
        type: 'boolean',
        description: '`true` when requesting the report again starts a new attempt (watermark reports: `false` after 3 failed attempts)',
        example: true,
      },
    },
  })
  failure!: { code: ReportFailureCode; retryable: boolean } | null;
}

/** Answer of `reports.request`: `started` tells the gateway whether this call queued a new attempt (202) or not (200). */
export interface RequestReportResult {
  started: boolean;
  report: ReportView;
}

/** Payload of `job.reports.generate`: one attempt of one report. */
export class GenerateReportJob {
  static readonly subject = REPORT_GENERATE_JOB_SUBJECT;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @IsIn(REPORT_LOCALES)
  locale!: ReportLocale;

  /** The attempt the job belongs to; a job of an older attempt is dropped. */
  @IsInt()
  @Min(1)
  attempt!: number;
}
