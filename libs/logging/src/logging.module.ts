import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { Options } from 'pino-http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOG_SERIALIZERS } from './logged-error';
import { loggedUrl } from './logged-url';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
/** Probes, polled every few seconds: no access line. */
export const NOT_ACCESS_LOGGED: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

export interface LoggingOptions {
  service: string;
  level: string;
}

/** Accept the caller's request id when it looks like one, otherwise make one; echo it on the response. */
export function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const id = typeof incoming === 'string' && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

function httpLoggerOptions(options: LoggingOptions): Options {
  return {
    level: options.level,
    base: { service: options.service },
    genReqId: requestIdFor,
    // An access line says who asked what and how it went; the whole header set (with its credentials to
    // redact) cost more to serialise than the rest of a cached API read (issue 19) and is not logged.
    serializers: {
      ...LOG_SERIALIZERS,
      req: (request: { id: unknown; method: string; url: string; remoteAddress?: string; headers: Record<string, unknown> }) => ({
        id: request.id,
        method: request.method,
        // Never a credential: test-upload tokens and presigned queries are left out.
        url: loggedUrl(request.url),
        remoteAddress: request.remoteAddress,
        userAgent: request.headers['user-agent'],
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    customProps: (request: IncomingMessage) => {
      const params = (request as IncomingMessage & { params?: Record<string, string> }).params;
      return params?.orderId ? { orderId: params.orderId } : {};
    },
    autoLogging: { ignore: (request) => NOT_ACCESS_LOGGED.has(request.url ?? '') },
  };
}

/** JSON logs (pino) with the service name, the request id and, on order routes, the order id. */
@Module({})
export class LoggingModule {
  /** `installedByApp`: the app installs `createAccessLog` itself; Nest's logger then binds no per-request logger. */
  static forRoot(options: LoggingOptions & { installedByApp?: boolean }): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        options.installedByApp
          ? LoggerModule.forRoot({ pinoHttp: { level: options.level, base: { service: options.service }, serializers: LOG_SERIALIZERS }, forRoutes: [] })
          : LoggerModule.forRoot({ pinoHttp: httpLoggerOptions(options) }),
      ],
    };
  }
}
