import type { components } from './generated/openapi';

/** A failed order's public failure code (`failure.errorCode`). */
export type OrderFailureCode = components['schemas']['OrderFailure']['errorCode'];

/**
 * What each public failure code means and what to do, in English. The API's own `failure.errorMessage` is the
 * contract's fixed Korean guidance; a developer reading the SDK's error or the CLI's output gets this instead.
 * Typed by the OpenAPI document's enum, so a code added to the API without a hint here does not compile.
 */
export const ORDER_FAILURE_HINTS: Record<OrderFailureCode, string> = {
  WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED:
    'unsupported colour mode: BMP must be 24-bit RGB or 1/8-bit greyscale, TIFF single-page 8-bit RGB or 1/8-bit greyscale without alpha',
  WATERMARK_FILE_INVALID: 'the file could not be read (not an image or PDF of a supported format, empty, truncated or damaged); check it and order again',
  WATERMARK_PDF_ENCRYPTED: 'the PDF is encrypted or permission-protected; remove the protection and order again',
  WATERMARK_FILE_TOO_LARGE: 'the file is larger than the limits allow (bytes, pixels or pages)',
  WATERMARK_SOURCE_URL_FAILED: 'the file could not be fetched from its URL; it must be a public HTTPS address that answers with the file',
  ORDER_TIMEOUT: 'the files were not all uploaded within 12 hours of the order',
  PROCESSING_ERROR: 'processing failed; try again later',
  PROCESSING_TIMEOUT: 'processing did not finish in time; the credits were given back, order again',
  WATERMARK_V2_API_SUNSET: 'the v2 watermark API is retired; use the v3 API',
  AI_DETECTION_FILE_INVALID: 'the image could not be read for AI detection; it must be a JPEG, PNG, WebP, TIFF, GIF or AVIF image',
  AI_DETECTION_FILE_TOO_LARGE: 'the image is larger than AI detection can analyse (pixels or bytes)',
  ANTI_AI_FORMAT_UNSUPPORTED: 'anti-AI protection takes JPEG, PNG, WebP and TIFF images only',
  ANTI_AI_OUTPUT_TARGET_EXPIRED: "the presigned URL for the result had expired; order again with a new one",
  ANTI_AI_OUTPUT_TARGET_REFUSED: 'the server of the result URL refused the upload; check the URL and its permissions',
  ANTI_AI_OUTPUT_TARGET_UNREACHABLE: 'the server of the result URL could not be reached; try again later',
  ANTI_AI_OUTPUT_TARGET_FORBIDDEN: 'the result URL must be HTTPS at a public address',
};

/** The hint for a failure code, or undefined for a code this SDK does not know (a newer API). */
export function orderFailureHint(code: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(ORDER_FAILURE_HINTS, code) ? ORDER_FAILURE_HINTS[code as OrderFailureCode] : undefined;
}
