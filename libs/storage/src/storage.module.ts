import { StorageConfig } from '@cp/config';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { ObjectStorage } from './object-storage';

@Global()
@Module({})
export class StorageModule {
  static forRoot(config: StorageConfig): DynamicModule {
    return {
      module: StorageModule,
      providers: [
        {
          provide: ObjectStorage,
          useFactory: async () => {
            const storage = new ObjectStorage(config);
            if (config.createBuckets) {
              // Named at start, like the other dependencies (runService logs it and exits 1).
              await storage.ensureBuckets().catch((error: unknown) => {
                throw new Error(`object storage (create buckets at ${new URL(config.endpoint).host}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
              });
            }
            return storage;
          },
        },
      ],
      exports: [ObjectStorage],
    };
  }
}
