import { Context, context, propagation, ROOT_CONTEXT, TextMapGetter, TextMapSetter } from '@opentelemetry/api';

/** The W3C trace-context header (`00-<trace id>-<span id>-<flags>`). */
export const TRACEPARENT_HEADER = 'traceparent';

/** The part of NATS's `MsgHdrs` the propagator needs (kept structural: this library does not depend on nats). */
export interface HeaderCarrier {
  get(key: string): string;
  set(key: string, value: string): void;
  keys(): string[];
}

const headerSetter: TextMapSetter<HeaderCarrier> = { set: (carrier, key, value) => carrier.set(key, value) };
const headerGetter: TextMapGetter<HeaderCarrier | undefined> = {
  keys: (carrier) => carrier?.keys() ?? [],
  // NATS answers '' for a missing header; the propagator expects undefined.
  get: (carrier, key) => carrier?.get(key) || undefined,
};

/** Writes the active (or given) trace context into message headers; nothing when tracing is off. */
export function injectTraceHeaders(headers: HeaderCarrier, from: Context = context.active()): void {
  propagation.inject(from, headers, headerSetter);
}

/** The trace context a message's headers carry (the root context when none). */
export function contextFromHeaders(headers: HeaderCarrier | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
}

/** The active `traceparent`, to store with a row that is sent later (the outbox); null when tracing is off. */
export function currentTraceparent(from: Context = context.active()): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return carrier[TRACEPARENT_HEADER] ?? null;
}

/** The context a stored `traceparent` stands for (the root context when none). */
export function contextFromTraceparent(traceparent: string | null | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { [TRACEPARENT_HEADER]: traceparent }) : ROOT_CONTEXT;
}
