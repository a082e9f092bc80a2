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

/**
 * Why the render process gave no PDF (logged; the report fails REPORT_GENERATION_FAILED). A render the machine failed
 * (STARVED, KILLED) is none of these: its WorkerFailure is thrown on and the job redelivered.
 */
export enum ReportRenderFailureCode {
  /** The render used its CPU budget (a share of its deadline): the process was stopped. */
  DEADLINE = 'RENDER_DEADLINE',
  /** The render process reached its heap or resident-memory limit. */
  OUT_OF_MEMORY = 'RENDER_OUT_OF_MEMORY',
  /** The render process died, could not start, or was closed mid-render. */
  CRASHED = 'RENDER_CRASHED',
  /** pdfmake refused the definition (an error thrown while laying it out). */
  REJECTED = 'RENDER_REJECTED',
}

/** The PDF could not be rendered; the service itself is unaffected (the render runs in another process). */
export class ReportRenderError extends ReportGenerationError {
  constructor(
    readonly code: ReportRenderFailureCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'ReportRenderError';
  }
}
