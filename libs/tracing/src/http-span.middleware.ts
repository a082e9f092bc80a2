import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { isErrorCode } from '@cp/contracts';
import { loggedUrl } from '@cp/logging';
import { otelContext, SpanAttributes, startSpan } from './spans';

/**
 * Starts the root span of each incoming HTTP request (the gateway's is where an order's trace begins) and runs the
 * rest of the pipeline inside it, so every RPC, outbox row and message sent for the request joins its trace. An
 * incoming `traceparent` is ignored: the API is public, and a caller must not choose or join another's trace.
 * Installed only when tracing is on. No auto-instrumentation package: one span per request is all we need.
 */
export function traceHttpRequests(request: Request, response: Response, next: NextFunction): void {
  const { span, context } = startSpan(`HTTP ${request.method}`, {
    kind: SpanKind.SERVER,
    parent: ROOT_CONTEXT,
    // A test-upload path is a credential (its token): redacted like the access log's.
    attributes: { 'http.request.method': request.method, 'url.path': loggedUrl(request.path) },
  });
  response.on('close', () => {
    const route = (request.route as { path?: string } | undefined)?.path;
    if (route) {
      span.updateName(`HTTP ${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', response.statusCode);
    // Set by the gateway's authentication: the account is what an operator searches by (never the key itself).
    const accountId = (request as { caller?: { accountId?: unknown } }).caller?.accountId;
    if (typeof accountId === 'string') {
      span.setAttribute(SpanAttributes.accountId, accountId);
    }
    const code = response.locals.errorCode as unknown;
    if (isErrorCode(code)) {
      span.setAttribute(SpanAttributes.errorCode, code);
    }
    if (response.statusCode >= 500) {
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  // The body is read in the socket's callbacks, which run in the context the connection was opened in: bound to
  // the request's span, the listeners body parsing adds keep it (as the HTTP instrumentation packages do).
  otelContext.bind(context, request);
  otelContext.bind(context, response);
  otelContext.with(context, next);
}

/** Records the public error code an HTTP answer carries, for the request's span (see `traceHttpRequests`). */
export function noteHttpErrorCode(response: Response, code: string): void {
  if (trace.getActiveSpan()?.isRecording()) {
    response.locals.errorCode = code;
  }
}
