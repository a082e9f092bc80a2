import { diag, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { DestinationStream } from 'pino';
import { diagnosticsLogger } from './diagnostics-logger';

/** What `startTracing` registered: flush and stop it at shutdown. */
export interface TracingHandle {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK of one service process, exporting spans over OTLP/HTTP, but only when the operator
 * configured a collector (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). Otherwise nothing
 * is registered: the API's no-op tracer and propagator stay in place, so a span costs one object and no context
 * propagation, header or export work happens (issue 33: tracing off costs nothing measurable on the hot path).
 * The exporter reads the standard OTEL_* variables itself (endpoint, headers, timeouts); the batch processor the
 * OTEL_BSP_* ones.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env, diagnosticsDestination?: DestinationStream): TracingHandle | undefined {
  if (!tracingConfigured(env)) {
    return undefined;
  }
  // The SDK's own warnings (an export that failed, spans dropped from a full queue) as the service's JSON log lines.
  const diagnostics = diagnosticsLogger(serviceName, env, diagnosticsDestination);
  diag.setLogger(diagnostics.logger, { logLevel: diagnostics.level, suppressOverrideMessage: true });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? serviceName }),
    // The exporter's destination is operator configuration, never caller input: exempt from @cp/egress (issue 29).
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Registers the AsyncLocalStorage context manager and the W3C trace-context propagator globally.
  provider.register();
  return {
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      diag.disable();
    },
  };
}

export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED !== 'true';
}
