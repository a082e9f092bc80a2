import { DomainException, ErrorCode } from '@cp/contracts';
import { useInMemoryTracing } from './in-memory-tracing.spec-helper';
import { contextFromHeaders, contextFromTraceparent, currentTraceparent, HeaderCarrier, injectTraceHeaders } from './trace-headers';
import { inSpan, SpanAttributes, SpanKind } from './spans';
import { startTracing, tracingConfigured } from './tracing-sdk';

/** NATS's MsgHdrs as far as the propagator uses it. */
function headers(): HeaderCarrier & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return { values, get: (key) => values.get(key) ?? '', set: (key, value) => void values.set(key, value), keys: () => [...values.keys()] };
}

describe('tracing switched off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('registers nothing: no trace context is propagated and spans are the no-op', async () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
    expect(startTracing('orders', {})).toBeUndefined();
    const carrier = headers();
    const recording = await inSpan('work', {}, async (span) => {
      injectTraceHeaders(carrier);
      return span.isRecording();
    });
    expect(recording).toBe(false);
    expect(carrier.keys()).toEqual([]);
    expect(currentTraceparent()).toBeNull();
  });

  it('is on when an endpoint is configured, unless the SDK is disabled', () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });
});

describe('tracing switched on', () => {
  const exporter = useInMemoryTracing();

  it('carries the trace through message headers: the receiving span is a child of the sending one', async () => {
    const carrier = headers();
    await inSpan('rpc orders.create', { kind: SpanKind.CLIENT }, async () => injectTraceHeaders(carrier));
    expect(carrier.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await inSpan('rpc orders.create', { kind: SpanKind.SERVER, parent: contextFromHeaders(carrier) }, async () => undefined);
    const [client, server] = exporter.getFinishedSpans();
    expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
  });

  it('keeps the trace through a stored traceparent (an outbox row published after a restart)', async () => {
    const stored = await inSpan('write outbox row', {}, async () => currentTraceparent());
    expect(stored).not.toBeNull();
    await inSpan('consume order.created', { parent: contextFromTraceparent(stored) }, async () => undefined);
    const [writer, consumer] = exporter.getFinishedSpans();
    expect(consumer.spanContext().traceId).toBe(writer.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(writer.spanContext().spanId);
  });

  it('starts a new trace when a message carries no context', async () => {
    await inSpan('consume', { parent: contextFromHeaders(headers()) }, async () => undefined);
    await inSpan('consume', { parent: contextFromTraceparent(null) }, async () => undefined);
    const [first, second] = exporter.getFinishedSpans();
    expect(first.parentSpanContext).toBeUndefined();
    expect(first.spanContext().traceId).not.toBe(second.spanContext().traceId);
  });

  it('records the public error code of a failure, not its internal message', async () => {
    await expect(inSpan('rpc', {}, async () => Promise.reject(new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'order 7 of account 9 missing')))).rejects.toBeInstanceOf(DomainException);
    await expect(inSpan('engine', {}, async () => Promise.reject(new Error('secret path /keys/a')))).rejects.toThrow('secret path');
    const [rejected, crashed] = exporter.getFinishedSpans();
    expect(rejected.attributes[SpanAttributes.errorCode]).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(rejected.status.message).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(crashed.attributes[SpanAttributes.errorCode]).toBeUndefined();
    expect(crashed.status.message).toBe('Error');
  });
});
