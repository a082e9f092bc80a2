/**
 * The values every order file of this library shares (ids, statuses, media kinds, locales). A leaf of the
 * library's imports: the feature files (orders, events, jobs, reports, each order type) take them from here, so
 * none of them has to import another that imports it back (issue 31; `import-cycles.spec.ts` keeps it so).
 */
export const ORDER_ID_PATTERN = /^[0-9]{1,20}$/;
export const OUTPUT_FILE_ID_PATTERN = /^[0-9]+-[0-9]+$/;

/** Spec 3.1: the statuses of an order (the OpenAPI document lists these too). */
export const ORDER_STATUSES = ['pending', 'inProgress', 'complete', 'failed', 'expired'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
// The value lists below also give the enumerations of the OpenAPI response schemas (the views' decorators).
export const OUTPUT_STATUSES = ['pending', 'queued', 'processing', 'completed', 'failed', 'retry_required'] as const;
export type OutputStatus = (typeof OUTPUT_STATUSES)[number];
export const DETECTION_STATUSES = ['detected', 'not_detected', 'inconclusive', 'unsupported', 'error'] as const;
export type DetectionStatus = (typeof DETECTION_STATUSES)[number];
export type ReportLocale = 'ko-KR' | 'en-US' | 'ja-JP';
export const REPORT_LOCALES: readonly ReportLocale[] = ['ko-KR', 'en-US', 'ja-JP'];
export const REPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const MEDIA_KINDS = ['image', 'pdf'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];
export type KeyModeLike = 'live' | 'test';
