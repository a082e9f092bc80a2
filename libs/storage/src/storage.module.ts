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
              await storage.ensureBuckets();
            }
            return storage;
          },
        },
      ],
      exports: [ObjectStorage],
    };
  }
}
