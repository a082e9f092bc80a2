import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from './openapi-document';
import { OpenApiHostModule } from './openapi-host.module';

/** `npm run sdk:generate` step 1: writes the committed OpenAPI document from the gateway's controllers. */
async function main(): Promise<void> {
  const app = await NestFactory.create(OpenApiHostModule.register(), { logger: false });
  const document = buildOpenApiDocument(app);
  await app.close();
  const target = path.resolve(__dirname, '../../../..', OPENAPI_DOCUMENT_PATH);
  writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote ${OPENAPI_DOCUMENT_PATH}\n`);
}

void main();
