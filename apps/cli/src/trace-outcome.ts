import type { ExtractResult } from '@cp/sdk';
import { ExitCode } from './exit-codes';

/** What `cpx trace` prints on stdout and the exit code it ends with. */
export interface TraceOutcome {
  line: string;
  exitCode: ExitCode;
}

/**
 * `cpx trace` as text and exit code, one per detection status (spec 2.4). Every line starts with the status, so a
 * reader of the output sees the same word as `cpx orders get` and the API. Only `detected` and `not_detected` are
 * answers about the file; the three others are said to be neither, because a script that took them for "no
 * watermark" would call a file clean that was never checked.
 *
 * A detection without a watermark text is either several of the account's recipients combined (the report lists
 * them with their scores) or a mark another account issued (its text is not shown): the public result does not
 * tell which (docs/api-decisions.md, colluders), so the line says both and where to look.
 */
export function traceOutcome(orderId: string, result: ExtractResult): TraceOutcome {
  const order = `\torder ${orderId}`;
  switch (result.detectionStatus) {
    case 'detected': {
      const who = result.watermarkText ?? `no single recipient (several of yours combined, or a mark issued by another account: cpx report ${orderId} says which)`;
      return { line: `detected: ${who}${order}`, exitCode: ExitCode.OK };
    }
    case 'not_detected':
      // unchanged since the first cpx: scripts match this line (exit 3 says the same)
      return { line: `not_detected${order}`, exitCode: ExitCode.NOT_DETECTED };
    case 'inconclusive': {
      // The report explains what was found; it cannot be made for an image captured from a PDF (reportSupported).
      const more = result.reportSupported ? `; cpx report ${orderId} shows what was found` : '';
      return {
        line: `inconclusive: a possible watermark was found but below the confidence threshold, so the file is neither detected nor clean${more}${order}`,
        exitCode: ExitCode.TRACE_INCONCLUSIVE,
      };
    }
    case 'error':
      return {
        line: `error: the file could not be checked, detection failed; this is not a "no watermark" result (credit refunded; check that both files open, then try again)${order}`,
        exitCode: ExitCode.TRACE_NOT_CHECKED,
      };
    case 'unsupported':
      return {
        line: `unsupported: the file could not be checked, its format or content is outside what can be checked (for example a BMP or TIFF outside the supported range, or a damaged or too large file); this is not a "no watermark" result (credit refunded)${order}`,
        exitCode: ExitCode.TRACE_UNSUPPORTED,
      };
    default: {
      // Unreachable for the statuses this cpx was built with; a newer API could send another, which is no answer.
      const status: string = result.detectionStatus;
      return { line: `${status}: an outcome this cpx does not know, not a "no watermark" result (cpx orders get ${orderId} shows the order)${order}`, exitCode: ExitCode.FAILURE };
    }
  }
}
