import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadWatermarkProcessorConfig } from './watermark-processor.config';

void runService({
  name: 'watermark-processor',
  loadConfig: () => loadWatermarkProcessorConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  // Answers its steps of an order's timeline (`<service>.order-steps`).
  rpc: true,
});
