import { ErrorCode } from '@cp/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { sendError } from './error-response';

/**
 * How long the body of an API request may take to arrive, from the moment the gateway starts on it: 1 MiB (the body
 * limit) at 35 KB/s. The server's own request timeout (10 minutes) is sized for the test-upload sink's 257 MiB files.
 */
export const BODY_READ_DEADLINE_MS = 30_000;

/**
 * The body declares a length over the limit and is not compressed (a compressed body's limit is on its decoded
 * bytes: body-parser's to judge).
 */
export function declaredOverLimit(request: IncomingMessage, limitBytes: number): boolean {
  const encoding = request.headers['content-encoding'];
  return Number(request.headers['content-length']) > limitBytes && (encoding === undefined || encoding.toLowerCase() === 'identity');
}

function declaresBody(request: Request): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

export interface BodyDeadlineOptions {
  /** Paths that stream large bodies and bound them themselves (the test-upload sink). */
  exempt: (path: string) => boolean;
  deadlineMs?: number;
}

/**
 * Bounds how long a caller can make the gateway read a body, on every route but the exempt ones (the test-upload
 * sink streams files and bounds them itself), from before any key is looked at: a body not received in full within
 * `deadlineMs` ends its connection, 408 without a body like Node's own request timeout, or, when the answer has gone
 * already (a 401, a 410, a 413 while the body was still coming: Node reads a refused body to its end to keep the
 * connection), the connection is closed. So a client cannot hold a socket by sending nothing, or a byte now and
 * then, for the server's 10 minutes, nor make it read a refused body of gigabytes.
 */
export function bodyDeadlineMiddleware({ exempt, deadlineMs = BODY_READ_DEADLINE_MS }: BodyDeadlineOptions) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!declaresBody(request) || exempt(request.path)) {
      next();
      return;
    }
    const timer = setTimeout(() => {
      if (request.complete) {
        return;
      }
      if (response.headersSent) {
        request.socket.destroy();
        return;
      }
      response.setHeader('Connection', 'close');
      response.status(408).end();
    }, deadlineMs);
    timer.unref();
    // 'close' comes once the body is read in full or the connection is gone, whatever answered it.
    request.once('close', () => clearTimeout(timer));
    next();
  };
}

/**
 * A body that declares more than the limit is 413 at once, before body-parser would read it all to answer the same
 * (the body deadline bounds what Node still reads of it so that the client, still sending, gets the answer rather
 * than a broken pipe). After authentication and the retired routes' 410, as every other refusal of a body.
 */
export function declaredBodyLimitMiddleware(limitBytes: number, exempt: (path: string) => boolean) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!exempt(request.path) && declaredOverLimit(request, limitBytes)) {
      sendError(response, ErrorCode.PAYLOAD_TOO_LARGE);
      return;
    }
    next();
  };
}
