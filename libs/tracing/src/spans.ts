import { isErrorCode } from '@cp/contracts';
import { Attributes, Context, context, Link, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** The attributes an operator searches traces by. Never a key, a secret or a file's content. */
export const SpanAttributes = {
  orderId: 'cp.order.id',
  orderType: 'cp.order.type',
  accountId: 'cp.account.id',
  /** The public error code (`ErrorCode` of @cp/contracts) a failed step answered or recorded. */
  errorCode: 'cp.error.code',
} as const;

/** What identifies an order on a span; every field optional (a step knows what it knows). */
export interface OrderSpanFields {
  orderId?: string;
  orderType?: string;
  accountId?: string;
}

const tracer = trace.getTracer('content-protection');

/** Order fields as span attributes, leaving out the unknown ones. */
export function orderAttributes(fields: OrderSpanFields): Attributes {
  const attributes: Attributes = {};
  if (fields.orderId) {
    attributes[SpanAttributes.orderId] = fields.orderId;
  }
  if (fields.orderType) {
    attributes[SpanAttributes.orderType] = fields.orderType;
  }
  if (fields.accountId) {
    attributes[SpanAttributes.accountId] = fields.accountId;
  }
  return attributes;
}

/** Adds order fields to the current span (e.g. once a handler has read the order). */
export function annotateActiveSpan(fields: OrderSpanFields): void {
  trace.getActiveSpan()?.setAttributes(orderAttributes(fields));
}

/** Marks `span` failed; the public code is recorded when the error carries one, the message stays inside. */
export function recordSpanError(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (isErrorCode(code)) {
    span.setAttribute(SpanAttributes.errorCode, code);
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: isErrorCode(code) ? code : (error as { name?: string } | null)?.name });
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Spans this one follows from without being their child (a request that continues an order's trace). */
  links?: Link[];
  /** The parent, when it is not the active context (a message's headers, an outbox row). */
  parent?: Context;
}

/**
 * Runs `work` in a new span, child of the active one (or `options.parent`), ending it when `work` settles and
 * recording the public error code of a failure. With tracing off the span is the API's no-op.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordSpanError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends itself (HTTP requests end with the response, not with a promise). */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

export { context as otelContext, propagation, SpanKind, SpanStatusCode, trace };
export type { Context, Span };
