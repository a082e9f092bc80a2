import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadAiDetectorConfig } from './ai-detector.config';

void runService({
  name: 'ai-detector',
  loadConfig: () => loadAiDetectorConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  // Answers its steps of an order's timeline (`<service>.order-steps`).
  rpc: true,
});
