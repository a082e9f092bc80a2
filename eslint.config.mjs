// Lint: strict TypeScript (no any, no floating promises, no console in services) and Nx module
// boundaries: apps depend on libs, a service's data-access lib only on that service, libs never on apps.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const services = ['api-gateway', 'orders', 'uploads', 'watermark-processor', 'ai-detector', 'reports', 'webhooks', 'retention'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'tmp/**', 'bench-results/**', '**/*.js', '**/*.mjs', '**/*.d.ts', 'jest.*.ts', 'libs/*/assembly/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      'no-console': 'error',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:data-access'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:data-access'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:data-access', 'type:tool'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            ...services.map((service) => ({
              sourceTag: `scope:${service}`,
              onlyDependOnLibsWithTags: ['scope:shared', `scope:${service}`],
            })),
            { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:shared', 'scope:api-gateway', 'scope:tools'] },
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared', 'scope:api-gateway', 'scope:tools'] },
          ],
        },
      ],
    },
  },
  {
    // One guarded way out (issue 29): a request whose destination comes from input (a source URL, a webhook, a
    // zero-copy target, anything later) goes through @cp/egress, which checks the address on the connected socket,
    // refuses redirects and bounds the exchange with a deadline and byte caps. Nothing else opens an outbound
    // HTTP connection. Type imports stay allowed (servers that listen, e.g. libs/runtime's http-timeouts), and so
    // are net's isIP and friends. Exempt, because their destination is fixed configuration, not input: the SDK
    // and the CLI (the user's own configured API). (The gateway's storage relay goes through @cp/egress held to the configured S3 origin.)
    // libs/tracing's SDK setup too (issue 33): its OTLP exporter sends spans to OTEL_EXPORTER_OTLP_ENDPOINT, the
    // operator's collector, never a place named by a caller; nothing else may load an exporter. And the storage
    // client's transport (libs/storage's object-storage.ts, issue 35): minio's own http/https with an idle limit,
    // to the configured S3 endpoint only.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/egress/**', 'libs/testing/**', 'libs/sdk/**', 'apps/cli/**', 'libs/tracing/src/tracing-sdk.ts', 'libs/storage/src/object-storage.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...['http', 'node:http', 'https', 'node:https', 'http2', 'node:http2', 'undici', 'request-filtering-agent', 'axios', 'got', 'node-fetch', '@opentelemetry/exporter-trace-otlp-http'].map((name) => ({
              name,
              message: 'Outbound requests go through @cp/egress (issue 29): it checks the connected address, refuses redirects, and has a deadline and byte caps.',
              allowTypeImports: true,
            })),
            ...['net', 'node:net', 'tls', 'node:tls'].map((name) => ({
              name,
              importNames: ['connect', 'createConnection', 'Socket', 'TLSSocket'],
              message: 'Outbound connections go through @cp/egress (issue 29).',
              allowTypeImports: true,
            })),
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Outbound requests go through @cp/egress (issue 29).' }],
    },
  },
  {
    // The repository rule (issue 31): only repositories, entities, migrations and the database plumbing touch
    // TypeORM; use cases, services, publishers and modules pass the `Transaction` handle of @cp/database to
    // repositories and never call the database themselves. Type imports count too (an `EntityManager` parameter
    // is how a use case would start calling `tx.query`). Exempt: libs/database (the DataSource, transactions,
    // WriteBatch, IdBlocks), the outbox, inbox and relay of libs/messaging and its test helpers, libs/runtime's
    // TypeORM CLI data source and its service bootstrap's database wiring (readiness, migrations), and specs.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: [
      '**/*.spec.ts',
      '**/*.repository.ts',
      '**/*.entity.ts',
      '**/migrations/**',
      'libs/database/**',
      'libs/messaging/src/outbox-writer.ts',
      'libs/messaging/src/outbox-relay.ts',
      'libs/messaging/src/event-consumer.ts',
      'libs/messaging/src/messaging.module.ts',
      'libs/messaging/src/__fixtures__/**',
      'libs/messaging/testing/**',
      'libs/runtime/src/cli-data-source.ts',
      'libs/runtime/src/service-kit.module.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'typeorm', message: 'Only *.repository.ts (and entities, migrations, libs/database) use TypeORM: pass the Transaction of @cp/database to a repository (issue 31).' }],
          patterns: [{ group: ['typeorm/*'], message: 'Only *.repository.ts (and entities, migrations, libs/database) use TypeORM (issue 31).' }],
        },
      ],
    },
  },
  {
    // The SDK is published on its own: nothing of the server may leak into it.
    files: ['libs/sdk/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@cp/*', '@nestjs/*', 'class-validator', 'typeorm'] }] },
  },
  {
    files: ['tools/**/*.ts', 'e2e/**/*.ts', '**/*.spec.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Written by openapi-typescript from the committed document: a nullable reference, `anyOf: [$ref, { enum: [null] }]`
    // beside `nullable: true` (both needed: see typeNullableReferences), comes out as `(X | null) | null`.
    files: ['libs/sdk/src/generated/**/*.ts'],
    rules: { '@typescript-eslint/no-duplicate-type-constituents': 'off' },
  },
);
