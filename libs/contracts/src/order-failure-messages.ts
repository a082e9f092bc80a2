import { OrderFailureCode } from './errors';

/**
 * Fixed Korean guidance per public failure code (spec 2.7: never raw processor output). The same texts
 * as the failed webhook's `errorMessage`.
 */
export const ORDER_FAILURE_MESSAGES_KO: Record<OrderFailureCode, string> = {
  [OrderFailureCode.WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED]:
    '지원하지 않는 이미지 색상 모드입니다. BMP는 24비트 RGB 또는 1/8비트 그레이스케일, TIFF는 단일 페이지 8비트 RGB 또는 1/8비트 그레이스케일(알파 없음)만 지원합니다.',
  [OrderFailureCode.WATERMARK_FILE_INVALID]: '파일을 읽을 수 없습니다. 파일 형식과 내용을 확인한 뒤 다시 시도해 주세요.',
  [OrderFailureCode.WATERMARK_PDF_ENCRYPTED]: '암호화되었거나 보호된 PDF에는 워터마크를 넣을 수 없습니다. 보호를 해제한 뒤 다시 시도해 주세요.',
  [OrderFailureCode.WATERMARK_FILE_TOO_LARGE]: '파일 크기가 허용 범위를 초과했습니다.',
  [OrderFailureCode.WATERMARK_SOURCE_URL_FAILED]: '원본 파일 URL에서 파일을 가져오지 못했습니다. URL이 공개 HTTPS 주소인지 확인해 주세요.',
  [OrderFailureCode.ORDER_TIMEOUT]: '12시간 안에 파일 업로드가 완료되지 않아 주문이 실패했습니다.',
  [OrderFailureCode.PROCESSING_ERROR]: '처리 중 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.',
  [OrderFailureCode.PROCESSING_TIMEOUT]: '처리가 제한 시간 안에 끝나지 않아 주문이 실패했습니다. 차감된 크레딧은 복구되었습니다. 다시 주문해 주세요.',
  [OrderFailureCode.WATERMARK_V2_API_SUNSET]: 'v2 워터마크 API 지원이 종료되었습니다. v3 API를 사용해 주세요.',
  [OrderFailureCode.AI_DETECTION_FILE_INVALID]: '이미지를 읽을 수 없어 AI 생성 여부를 분석하지 못했습니다. JPEG, PNG, WebP, TIFF, GIF, AVIF 이미지인지 확인해 주세요.',
  [OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE]: '이미지가 분석 가능한 크기(픽셀 수 또는 파일 크기)를 초과했습니다.',
  [OrderFailureCode.ANTI_AI_FORMAT_UNSUPPORTED]: 'AI 학습 방지 처리는 JPEG, PNG, WebP, TIFF 이미지만 지원합니다.',
  [OrderFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED]: '결과를 업로드할 presigned URL의 유효 기간이 지났습니다. 새 URL로 다시 주문해 주세요.',
  [OrderFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED]: '결과 업로드 대상 서버가 업로드를 거부했습니다. URL과 권한을 확인해 주세요.',
  [OrderFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE]: '결과 업로드 대상 서버에 연결하지 못했습니다. 잠시 후 다시 시도해 주세요.',
  [OrderFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN]: '결과 업로드 대상은 공개 주소의 HTTPS URL이어야 합니다.',
};

/** A failure code that is not public (should not happen) is shown as PROCESSING_ERROR. */
export function publicOrderError(code: string | null): { errorCode: OrderFailureCode; errorMessage: string } {
  const known = (Object.values(OrderFailureCode) as string[]).includes(code ?? '') ? (code as OrderFailureCode) : OrderFailureCode.PROCESSING_ERROR;
  return { errorCode: known, errorMessage: ORDER_FAILURE_MESSAGES_KO[known] };
}
