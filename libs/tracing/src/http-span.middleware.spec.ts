import { ErrorCode } from '@cp/contracts';
import { useInMemoryTracing } from './in-memory-tracing.spec-helper';
import type { NextFunction, Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import { noteHttpErrorCode, traceHttpRequests } from './http-span.middleware';
import { SpanAttributes } from './spans';
import { currentTraceparent } from './trace-headers';

/** The parts of an Express request and response the middleware reads, on real event emitters. */
function exchange(headers: Record<string, string> = {}): { request: Request; response: Response } {
  const request = Object.assign(new EventEmitter(), { method: 'POST', path: '/api/v3/orders/wtr-embed', headers }) as unknown as Request;
  const response = Object.assign(new EventEmitter(), { statusCode: 200, locals: {} }) as unknown as Response;
  return { request, response };
}

describe('traceHttpRequests', () => {
  const exporter = useInMemoryTracing();

  it('starts a root span (a caller cannot join another trace), runs the pipeline and the body listeners in it, ends with the response', () => {
    const foreign = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { request, response } = exchange({ traceparent: foreign });
    let inPipeline: string | null = null;
    let inBodyListener: string | null = null;
    const next: NextFunction = () => {
      inPipeline = currentTraceparent();
      // Body parsing adds its listeners after the middleware ran; they fire from the socket's callbacks.
      request.on('end', () => (inBodyListener = currentTraceparent()));
    };
    traceHttpRequests(request, response, next);
    setImmediate(() => request.emit('end'));
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        Object.assign(request, { route: { path: '/api/v3/orders/wtr-embed' }, caller: { accountId: '42', apiKey: 'cp_live_secret' } });
        response.statusCode = 404;
        noteHttpErrorCode(response, ErrorCode.RESOURCE_NOT_FOUND);
        response.emit('close');
        const [span] = exporter.getFinishedSpans();
        expect(span.parentSpanContext).toBeUndefined();
        expect(span.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
        expect(inPipeline).toContain(span.spanContext().traceId);
        expect(inBodyListener).toBe(inPipeline);
        expect(span.name).toBe('HTTP POST /api/v3/orders/wtr-embed');
        expect(span.attributes).toMatchObject({ 'http.response.status_code': 404, [SpanAttributes.accountId]: '42' });
        expect(JSON.stringify(span.attributes)).not.toContain('cp_live_secret');
        resolve();
      }),
    );
  });

  it('records the public error code an answer carried; a 5xx marks the span failed', () => {
    const { request, response } = exchange();
    traceHttpRequests(request, response, () => {
      response.statusCode = 503;
      noteHttpErrorCode(response, ErrorCode.WATERMARK_V2_UNAVAILABLE);
    });
    response.emit('close');
    const [span] = exporter.getFinishedSpans();
    expect(span.attributes[SpanAttributes.errorCode]).toBe(ErrorCode.WATERMARK_V2_UNAVAILABLE);
    expect(span.status.code).toBe(2);
  });

  it('keeps no test-upload token in the span: the path is a credential', () => {
    const { request, response } = exchange();
    Object.assign(request, { method: 'PUT', path: '/api/v2/test-uploads/eyJvcmRlcklkIjoiNyJ9.c2lnbmF0dXJl' });
    traceHttpRequests(request, response, () => undefined);
    response.emit('close');
    const [span] = exporter.getFinishedSpans();
    expect(span.attributes['url.path']).toBe('/api/v2/test-uploads/[redacted]');
  });
});
