import { ConfigValidationError } from '@cp/config';
import { NATS_RECONNECT_OPTIONS, natsServers } from '@cp/messaging';
import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { Histogram } from 'prom-client';
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

/** Boots one service process; configuration errors name the variable and exit with status 1. */
export async function runService<TConfig>(options: RunServiceOptions<TConfig>): Promise<INestApplication> {
  // First, so nothing during boot or after it can end the process through an unhandled rejection.
  installProcessErrorHandlers(options.name);
  let config: TConfig;
  try {
    config = options.loadConfig();
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`${JSON.stringify({ level: 'fatal', service: options.name, msg: error.message })}\n`);
      process.exit(1);
    }
    throw error;
  }
  cacheValidationMetadata();
  const app = await NestFactory.create<NestExpressApplication>(options.module(config), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  app.enableShutdownHooks();
  app.use(measureRequests);
  await options.configure?.(app, config);
  if (options.rpc) {
    app.connectMicroservice<MicroserviceOptions>({
      transport: Transport.NATS,
      // Same reconnect policy as the JetStream connection: the transport's own defaults give up.
      options: { servers: natsServers(options.natsUrl(config)), queue: options.name, name: `${options.name}-rpc`, ...NATS_RECONNECT_OPTIONS },
    });
    await app.startAllMicroservices();
  }
  const { host, port } = options.http(config);
  applyHttpTimeouts(app.getHttpServer());
  await app.listen(port, host);
  return app;
}
