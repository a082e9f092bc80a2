import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadUploadsConfig } from './uploads.config';

void runService({
  name: 'uploads',
  loadConfig: () => loadUploadsConfig(),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.http.port,
  natsUrl: (config) => config.nats.url,
  rpc: true,
});
