import pino, { DestinationStream, Logger } from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loggedUrl } from './logged-url';
import { LoggingOptions, NOT_ACCESS_LOGGED, requestIdFor } from './logging.module';

/** A request as `createAccessLog` leaves it: `id` (`X-Request-Id`, as pino-http's typing declares it) names it in the app's own log lines. */
export interface LoggedRequest extends IncomingMessage {
  params?: Record<string, string>;
}

/**
 * The access log as a plain middleware, first in an app's pipeline, so that requests its own earlier middleware
 * rejects get a request id and a line too. The same line as pino-http's (`req`, `res`, `responseTime`,
 * `orderId` on order routes, "request completed" / "request errored"), without its per-request child loggers:
 * pino-http serialised every request into two or three child loggers even when the level wrote nothing, and the
 * per-request AsyncLocalStorage scope of nestjs-pino put a hook on every promise of the process; together about a
 * sixth of the gateway's CPU on a cached read (issue 19). Log lines written while serving a request name it
 * with `reqId` (LoggedRequest.id).
 */
export function createAccessLog(
  options: LoggingOptions,
  destination?: DestinationStream,
): (request: LoggedRequest, response: ServerResponse, next: () => void) => void {
  const settings = { level: options.level, base: { service: options.service } };
  const logger: Logger = destination ? pino(settings, destination) : pino(settings);
  return (request, response, next) => {
    request.id = requestIdFor(request, response);
    if (NOT_ACCESS_LOGGED.has(request.url ?? '') || !logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const startedAt = Date.now();
    const done = (): void => {
      response.removeListener('finish', done);
      response.removeListener('close', done);
      const failed = response.statusCode >= 500;
      const line = {
        // Never a credential: test-upload tokens and presigned queries are left out (loggedUrl).
        req: { id: request.id, method: request.method, url: loggedUrl(request.url ?? ''), remoteAddress: request.socket.remoteAddress, userAgent: request.headers['user-agent'] },
        res: { statusCode: response.statusCode },
        responseTime: Date.now() - startedAt,
        ...(request.params?.orderId ? { orderId: request.params.orderId } : {}),
      };
      if (failed) {
        logger.error(line, 'request errored');
      } else {
        logger.info(line, 'request completed');
      }
    };
    response.on('finish', done);
    response.on('close', done);
    next();
  };
}
