import { Clock } from '@cp/clock';
import { ErrorCode } from '@cp/contracts';
import { createAccessLog } from '@cp/logging';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { apiKeyAuthMiddleware, isPublicPath, isTestUploadPath } from './auth/api-key-auth.middleware';
import { AuthenticatedKeyCache } from './auth/authenticated-key-cache';
import { GatewayConfig } from './gateway.config';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { RateLimiterService } from './rate-limit/rate-limiter.service';
import { bodyDeadlineMiddleware, declaredBodyLimitMiddleware } from './http/body-deadline.middleware';
import { answerClientErrors } from './http/client-error.listener';
import { sendError } from './http/error-response';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { createValidationPipe } from './http/validation.pipe';
import { inputHygieneMiddleware } from './http/input-hygiene.middleware';
import { strictJsonBodyParser } from './http/json-body.parser';
import { deferTestUploadContinue } from './test-uploads/test-upload-continue.listener';
import { Reflector } from '@nestjs/core';
import { QueryParametersGuard } from './http/query-parameters.guard';
import { DeprecatedRouteGuard } from './v2/deprecated-route.guard';
import { isRetiredV2Request, v2SunsetMiddleware } from './v2/v2-sunset.middleware';

/**
 * Every failure of body reading is the client's: body-parser and raw-body mark theirs with a 4xx `status`
 * (bad JSON, unsupported charset or encoding, bytes not valid in their charset, a corrupt gzip/deflate/br body,
 * an aborted upload), and a size overrun with 413. Nothing that happens while reading a body is a 500.
 */
function bodyParserErrors(error: unknown, _request: Request, response: Response, next: NextFunction): void {
  const status = (error as { status?: unknown } | null)?.status;
  if (status === 413) {
    sendError(response, ErrorCode.PAYLOAD_TOO_LARGE);
  } else if (typeof status === 'number' && status >= 400 && status < 500) {
    sendError(response, ErrorCode.VALIDATION_FAILED);
  } else if (error) {
    next(error);
  }
}

/**
 * Order matters: request id and access log, the body's deadline, auth and rate limit, the retired v2 routes (410 before the
 * body is read and without counting against the rate limit), then body parsing and input hygiene, then routing with validation (controllers wrap their answers in `data`).
 */
export function configureGatewayPipeline(app: NestExpressApplication, config: GatewayConfig): void {
  app.disable('x-powered-by');
  // The test-upload sink answers `Expect: 100-continue` itself, after its token and size checks; an API body declared
  // over the limit is not asked for.
  deferTestUploadContinue(app.getHttpServer(), config.bodyLimitBytes);
  // Requests Node's parser refuses (oversized headers) get the same `{ code }` body as every other refusal.
  answerClientErrors(app.getHttpServer());
  // JSON API answers are not cached by validators: no SHA-1 of every body for an ETag nobody sends back.
  app.set('etag', false);
  app.set('trust proxy', true);
  app.use(createAccessLog({ service: 'api-gateway', level: config.log.level }));
  app.use(bodyDeadlineMiddleware({ exempt: isTestUploadPath }));
  const clock = app.get(Clock);
  app.use(apiKeyAuthMiddleware(app.get(AuthenticatedKeyCache), app.get(RateLimiterService), (request) => isRetiredV2Request(request, clock) !== null));
  app.use(v2SunsetMiddleware(clock));
  app.use(declaredBodyLimitMiddleware(config.bodyLimitBytes, isTestUploadPath));
  // Strict: bytes that are not valid text in their charset are refused, never decoded into U+FFFD.
  const parseJson = strictJsonBodyParser(config.bodyLimitBytes);
  // The test-upload sink streams raw file bytes, whatever their declared type.
  app.use((request: Request, response: Response, next: NextFunction) =>
    isTestUploadPath(request.path) ? next() : parseJson(request, response, next),
  );
  app.use(bodyParserErrors);
  app.use(inputHygieneMiddleware);
  app.useGlobalFilters(new HttpExceptionFilter());
  // In this order: a deprecated route's headers are set before any refusal of the route, an unknown query parameter's included.
  app.useGlobalGuards(new DeprecatedRouteGuard(app.get(Reflector), clock), new QueryParametersGuard(isPublicPath));
  app.useGlobalPipes(createValidationPipe());

  const document = buildOpenApiDocument(app, config.publicBaseUrl);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
