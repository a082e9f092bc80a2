import { ConfigValidationError } from '@cp/config';
import { createRpcServer, NATS_RECONNECT_OPTIONS, natsServers } from '@cp/messaging';
import { DynamicModule, INestApplication, Logger as NestLogger, OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, NatsContext, ServerNats } from '@nestjs/microservices';
import { contextFromHeaders, HeaderCarrier, inSpan, SpanKind, startTracing, TracingHandle, traceHttpRequests } from '@cp/tracing';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import pino from 'pino';
import { Histogram } from 'prom-client';
import { loadServiceConfig } from './deadline-env';
import { applyHttpTimeouts } from './http-timeouts';
import { installProcessErrorHandlers } from './process-error-handlers';
import { cacheValidationMetadata } from './validation-metadata-cache';

export interface RunServiceOptions<TConfig> {
  name: string;
  loadConfig: () => TConfig;
  module: (config: TConfig) => DynamicModule;
  http: (config: TConfig) => { host: string; port: number };
  natsUrl: (config: TConfig) => string;
  /** Serve `@MessagePattern` handlers (controllers marked `@RpcHandlers()`) over NATS request/reply. */
  rpc: boolean;
  /** Extra HTTP setup (the gateway's pipeline). */
  configure?: (app: NestExpressApplication, config: TConfig) => void | Promise<void>;
}

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by method, route and status',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

function measureRequests(request: Request, response: Response, next: NextFunction): void {
  const stop = httpDuration.startTimer();
  response.on('finish', () => {
    const route = (request.route as { path?: string } | undefined)?.path ?? 'unmatched';
    stop({ method: request.method, route, status: String(response.statusCode) });
  });
  next();
}

/** Flushes the spans still buffered when the service stops (a provider of the root module, so Nest calls it last). */
class TracingShutdown implements OnApplicationShutdown {
  constructor(private readonly tracing: TracingHandle) {}

  async onApplicationShutdown(): Promise<void> {
    try {
      await this.tracing.shutdown();
    } catch (error) {
      // A collector that cannot be reached costs the last spans, never the shutdown: the service stops cleanly.
      new NestLogger('Tracing').warn(`spans not flushed at shutdown: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * The NATS request/reply server (`createRpcServer`: replies bounded by NATS's `max_payload`): with tracing on, each
 * request is handled inside a server span whose parent is the caller's (`traceparent` in the request's headers), so
 * the handler's own RPCs and outbox rows join the trace.
 */
function rpcServer(options: ConstructorParameters<typeof ServerNats>[0], traced: boolean): MicroserviceOptions {
  const server = createRpcServer(options);
  if (traced) {
    server.setOnProcessingStartHook((_transport, context, done) => {
      const nats = context as NatsContext;
      void inSpan(`rpc ${nats.getSubject()}`, { kind: SpanKind.SERVER, parent: contextFromHeaders(nats.getHeaders() as HeaderCarrier | undefined) }, () => done());
    });
  }
  return { strategy: server };
}

/**
 * Boots one service process. Configuration errors name the variable and exit with status 1; so does any other
 * failure to start (PostgreSQL, NATS or storage unreachable, a migration that fails, a port in use): one JSON
 * `fatal` line naming the step and its cause, then status 1, so the orchestrator restarts the process with its
 * back-off. Never a process left running half started (connections open, no HTTP server for the probes).
 */
export async function runService<TConfig>(options: RunServiceOptions<TConfig>): Promise<INestApplication> {
  // First, so nothing during boot or after it can end the process through an unhandled rejection.
  installProcessErrorHandlers(options.name);
  let config: TConfig;
  try {
    config = loadServiceConfig(options.loadConfig);
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`${JSON.stringify({ level: 'fatal', service: options.name, msg: error.message })}\n`);
      process.exit(1);
    }
    // Anything else a loader throws (a value it parses itself) ends the start too: rethrown, it was an unhandled
    // rejection, logged as one the process survives, and the process then exited 0 with no server.
    return exitOnStartFailure(options.name, new Error(`configuration: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
  }
  try {
    return await startService(options, config);
  } catch (error) {
    return exitOnStartFailure(options.name, error);
  }
}

/**
 * A start that failed ends the process with status 1. The unhandled-rejection policy (log and keep running) must not
 * apply here: a process whose start was cut short may hold NATS and PostgreSQL connections, even pull jobs, while
 * serving no `/health`, until the startup probe gives up on it minutes later; or it exits 0, which reads as success.
 */
export function exitOnStartFailure(service: string, error: unknown, logger: Pick<pino.Logger, 'fatal'> = pino({ base: { service } })): never {
  const reason = error instanceof Error ? error.message : String(error);
  // The message names the step and already carries its cause's text; `err` is the original error, with its stack
  // and code (pino would repeat the cause's text after the step's own message otherwise).
  logger.fatal({ err: originalError(error) }, `${service} did not start: ${reason}; exiting with status 1`);
  process.exit(1);
}

function originalError(error: unknown): unknown {
  let current = error;
  while (current instanceof Error && current.cause !== undefined) {
    current = current.cause;
  }
  return current;
}

async function startService<TConfig>(options: RunServiceOptions<TConfig>, config: TConfig): Promise<INestApplication> {
  cacheValidationMetadata();
  // Before the application is built, so the context manager and propagator are in place for every request.
  const tracing = startTracing(options.name);
  const root = options.module(config);
  if (tracing) {
    root.providers = [...(root.providers ?? []), { provide: TracingShutdown, useValue: new TracingShutdown(tracing) }];
  }
  const app = await NestFactory.create<NestExpressApplication>(root, {
    bufferLogs: true,
    // A provider that fails while the application is built (the database's factory: connect and migrate) is thrown
    // to runService, which logs it as JSON and exits 1; Nest's default prints it in colour and aborts, and its
    // automatic flush would print the buffered boot lines through its console logger, not as JSON.
    abortOnError: false,
    autoFlushLogs: false,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  app.enableShutdownHooks();
  app.use(measureRequests);
  if (tracing) {
    app.use(traceHttpRequests);
  }
  await options.configure?.(app, config);
  if (options.rpc) {
    app.connectMicroservice<MicroserviceOptions>(
      // Same reconnect policy as the JetStream connection: the transport's own defaults give up.
      rpcServer({ servers: natsServers(options.natsUrl(config)), queue: options.name, name: `${options.name}-rpc`, ...NATS_RECONNECT_OPTIONS }, tracing !== undefined),
    );
  }
  // Every module initialised (JetStream and its streams, consumers, start-up work) before the RPC server joins its
  // queue group: started first, a replica took its share of the requests while it was still starting, and kept
  // answering them when its start then failed.
  await app.init();
  if (options.rpc) {
    await app.startAllMicroservices();
  }
  const { host, port } = options.http(config);
  applyHttpTimeouts(app.getHttpServer());
  await app.listen(port, host);
  return app;
}
