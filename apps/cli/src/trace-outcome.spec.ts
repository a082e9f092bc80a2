import type { ExtractResult } from '@cp/sdk';
import { ExitCode } from './exit-codes';
import { traceOutcome } from './trace-outcome';

function result(detectionStatus: ExtractResult['detectionStatus'], watermarkText: string | null = null, reportSupported = true): ExtractResult {
  return { detectionStatus, watermarkText, reportSupported };
}

describe('traceOutcome (cpx trace: the printed line and the exit code of each detection status, spec 2.4)', () => {
  it.each<[ExtractResult, string, ExitCode]>([
    [result('detected', 'bob'), 'detected: bob\torder 2', ExitCode.OK],
    [
      result('detected', null),
      'detected: no single recipient (several of yours combined, or a mark issued by another account: cpx report 2 says which)\torder 2',
      ExitCode.OK,
    ],
    [result('not_detected', null, false), 'not_detected\torder 2', ExitCode.NOT_DETECTED],
    [
      result('inconclusive'),
      'inconclusive: a possible watermark was found but below the confidence threshold, so the file is neither detected nor clean; cpx report 2 shows what was found\torder 2',
      ExitCode.TRACE_INCONCLUSIVE,
    ],
    [
      result('inconclusive', null, false),
      'inconclusive: a possible watermark was found but below the confidence threshold, so the file is neither detected nor clean\torder 2',
      ExitCode.TRACE_INCONCLUSIVE,
    ],
    [
      result('error', null, false),
      'error: the file could not be checked, detection failed; this is not a "no watermark" result (credit refunded; check that both files open, then try again)\torder 2',
      ExitCode.TRACE_NOT_CHECKED,
    ],
    [
      result('unsupported', null, false),
      'unsupported: the file could not be checked, its format or content is outside what can be checked (for example a BMP or TIFF outside the supported range, or a damaged or too large file); this is not a "no watermark" result (credit refunded)\torder 2',
      ExitCode.TRACE_UNSUPPORTED,
    ],
  ])('%j → its line and exit code', (given, line, exitCode) => {
    expect(traceOutcome('2', given)).toEqual({ line, exitCode });
  });

  it('gives every outcome that is not an answer about the file a code of its own, none of them "no watermark" (3) or success (0)', () => {
    const codes = (['inconclusive', 'error', 'unsupported'] as const).map((status) => traceOutcome('7', result(status)).exitCode);
    expect(new Set(codes).size).toBe(3);
    for (const code of codes) {
      expect([ExitCode.OK, ExitCode.NOT_DETECTED]).not.toContain(code);
    }
  });

  it('says plainly that error and unsupported files were not checked', () => {
    for (const status of ['error', 'unsupported'] as const) {
      expect(traceOutcome('7', result(status)).line).toContain('could not be checked');
    }
    expect(traceOutcome('7', result('unsupported')).line).toContain('outside what can be checked');
  });

  it('treats a status this cpx does not know as no answer (exit 1), never as "no watermark"', () => {
    const unknown = { detectionStatus: 'partly_detected', watermarkText: null, reportSupported: false } as unknown as ExtractResult;
    expect(traceOutcome('8', unknown)).toEqual({
      line: 'partly_detected: an outcome this cpx does not know, not a "no watermark" result (cpx orders get 8 shows the order)\torder 8',
      exitCode: ExitCode.FAILURE,
    });
  });
});
