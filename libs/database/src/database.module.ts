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
        { provide: DataSource, useFactory: () => openServiceDatabase(options) },
        DataSourceCloser,
        TransactionRepository,
      ],
      exports: [DataSource, TransactionRepository],
    };
  }
}
