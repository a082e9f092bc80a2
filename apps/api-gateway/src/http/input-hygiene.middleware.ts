import { ErrorCode, findInputProblem } from '@cp/contracts';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from './error-response';

/**
 * Right after body parsing, for every route: a body or query nested too deeply, larger than any request of the
 * API (`INPUT_LIMITS`: building and validating DTOs of a hostile 1 MiB body held the event loop for seconds), or
 * with a NUL, control character or lone surrogate in any key or string, is VALIDATION_FAILED before a DTO, a
 * transformer or PostgreSQL sees it. One rule for every field instead of one decorator per field.
 */
export function inputHygieneMiddleware(request: Request, response: Response, next: NextFunction): void {
  if (findInputProblem(request.body) || findInputProblem(request.query)) {
    sendError(response, ErrorCode.VALIDATION_FAILED);
    return;
  }
  next();
}
