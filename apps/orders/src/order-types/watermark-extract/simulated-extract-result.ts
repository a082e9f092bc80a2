import { DetectionStatus, ExtractResultView } from '@cp/contracts';

export const SIMULATED_WATERMARK_TEXT = 'sample watermark text';

/**
 * Test-key extract orders get a simulated result chosen by the inspected file's name, so client
 * developers can exercise every branch: a name containing `inconclusive`, `unsupported` or `error` gives
 * that status; `not-detected`, `not_detected` or `undetected` gives not_detected; `detected` gives
 * detected (with a sample text); anything else gives not_detected.
 */
export function simulatedExtractResult(inspectedFileName: string, originalIsPdf: boolean, inspectedIsImage: boolean): ExtractResultView {
  const name = inspectedFileName.toLowerCase();
  let status: DetectionStatus = 'not_detected';
  if (name.includes('inconclusive')) {
    status = 'inconclusive';
  } else if (name.includes('unsupported')) {
    status = 'unsupported';
  } else if (name.includes('error')) {
    status = 'error';
  } else if (/not[-_]detected|undetected/.test(name)) {
    status = 'not_detected';
  } else if (name.includes('detected')) {
    status = 'detected';
  }
  return {
    detectionStatus: status,
    reportSupported: isReportSupported(status, originalIsPdf && inspectedIsImage),
    watermarkText: status === 'detected' ? SIMULATED_WATERMARK_TEXT : null,
  };
}

/** Spec 2.4: no report for an image captured from a PDF, nor for a result that says nothing. */
export function isReportSupported(status: DetectionStatus, capturedFromPdf: boolean): boolean {
  return !capturedFromPdf && (status === 'detected' || status === 'not_detected' || status === 'inconclusive');
}
