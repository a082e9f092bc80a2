// Child process of run-service.spec.ts: a service whose start fails the way argv[2] says, booted by runService.
//   factory   a provider's factory rejects while the application is built (as opening the database does)
//   init      a provider's onModuleInit rejects (as the NATS connection does)
//   postgres  the real service kit against a PostgreSQL that does not answer (a closed port)
//   config    the configuration loader throws something else than a ConfigValidationError (a value it parses itself)
import 'reflect-metadata';
import { CoreEnv, StorageEnv, toCoreConfig, validateEnv } from '@cp/config';
import { LoggingModule } from '@cp/logging';
import { DynamicModule, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { runService } from '../run-service';
import { ServiceKitModule } from '../service-kit.module';

const mode = process.argv[2];

@Injectable()
class FailingInit implements OnModuleInit {
  async onModuleInit(): Promise<void> {
    throw new Error('init step refused');
  }
}

@Module({})
class FixtureModule {
  static forRoot(): DynamicModule {
    if (mode === 'postgres') {
      const core = toCoreConfig(validateEnv(StorageEnv, { PORT: '1', METRICS_PORT: '0', DATABASE_URL: `postgres://postgres@127.0.0.1:${process.argv[3]}/nothing` }));
      return { module: FixtureModule, imports: [ServiceKitModule.forRoot({ name: 'fixture', schema: 'fixture', core, entities: [], migrations: [] })] };
    }
    return {
      module: FixtureModule,
      imports: [LoggingModule.forRoot({ service: 'fixture', level: 'info' })],
      providers:
        mode === 'factory'
          ? [{ provide: 'BROKEN', useFactory: () => Promise.reject(new Error('factory refused')) }]
          : [FailingInit],
    };
  }
}

void runService({
  name: 'fixture',
  loadConfig: () => {
    const env = validateEnv(CoreEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/unused' });
    // As the gateway's loader reads the host of S3_PUBLIC_ENDPOINT: a value the loader parses after validation.
    return mode === 'config' ? { ...env, signedHost: new URL('http://files:port').host } : env;
  },
  module: () => FixtureModule.forRoot(),
  http: () => ({ host: '127.0.0.1', port: 0 }),
  natsUrl: () => 'nats://127.0.0.1:1',
  rpc: false,
}).then(() => {
  process.stdout.write('started\n');
  process.exit(0);
});
