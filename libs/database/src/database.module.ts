import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { openServiceDatabase, ServiceDatabaseOptions } from './service-data-source';
import { TransactionRepository } from './transaction.repository';

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
    }
  }
}

/** Provides the service's migrated DataSource and its transaction runner; closes the pool on shutdown. */
@Global()
@Module({})
export class DatabaseModule {
  static forService(options: ServiceDatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DataSource,
          // Named at start: a bare `connect ECONNREFUSED 10.0.3.7:5432` does not tell an operator which dependency it was.
          useFactory: () =>
            openServiceDatabase(options).catch((error: unknown) => {
              throw new Error(`PostgreSQL (connect, migrate schema ${options.schema}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
            }),
        },
        DataSourceCloser,
        TransactionRepository,
      ],
      exports: [DataSource, TransactionRepository],
    };
  }
}
