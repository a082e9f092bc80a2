import { ErrorCode } from '@cp/contracts';
import { AccountsRepository } from '@cp/gateway-data-access';
import { createHttpLogger } from '@cp/logging';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { json } from 'express';
import { apiKeyAuthMiddleware, isTestUploadPath } from '../auth/api-key-auth.middleware';
import { GatewayConfig } from '../gateway.config';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { EnvelopeInterceptor } from './envelope.interceptor';
import { sendError } from './error-response';
import { HttpExceptionFilter } from './http-exception.filter';
import { createValidationPipe } from './validation.pipe';

/** body-parser reports its failures with a `type`; map them to public codes. */
function bodyParserErrors(error: unknown, _request: Request, response: Response, next: NextFunction): void {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.too.large') {
    sendError(response, ErrorCode.PAYLOAD_TOO_LARGE);
  } else if (type === 'entity.parse.failed' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
    sendError(response, ErrorCode.VALIDATION_FAILED);
  } else if (error) {
    next(error);
  }
}

/** Order matters: request id and access log, auth and rate limit, then body parsing, then routing with validation and envelopes. */
export function configureGatewayPipeline(app: NestExpressApplication, config: GatewayConfig): void {
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(createHttpLogger({ service: 'api-gateway', level: config.log.level }));
  app.use(apiKeyAuthMiddleware(app.get(AccountsRepository), app.get(RateLimiterService)));
  const parseJson = json({ limit: config.bodyLimitBytes, strict: true });
  // The test-upload sink streams raw file bytes, whatever their declared type.
  app.use((request: Request, response: Response, next: NextFunction) =>
    isTestUploadPath(request.path) ? next() : parseJson(request, response, next),
  );
  app.use(bodyParserErrors);
  app.useGlobalFilters(new HttpExceptionFilter());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalInterceptors(new EnvelopeInterceptor());

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Content Protection Order API')
      .setDescription('Invisible watermarks for images and PDFs: embed, extract, reports, webhooks.')
      .setVersion('2.0.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_live_… or sk_test_…' })
      .addSecurityRequirements('bearer')
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
