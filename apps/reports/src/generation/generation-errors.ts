/** The attempt cannot succeed by repeating it now (bad input, rendering failed): it fails at once, retryable by a new request. */
export class ReportGenerationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReportGenerationError';
  }
}

/** The order no longer supports a report (gone, not reportable, files missing): failed for good. */
export class ReportNotAvailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportNotAvailableError';
  }
}
