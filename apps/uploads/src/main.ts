import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadUploadsConfig } from './uploads.config';

void runService({
  name: 'uploads',
  loadConfig: () => loadUploadsConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  rpc: true,
});
