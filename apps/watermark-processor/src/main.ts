import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadWatermarkProcessorConfig } from './watermark-processor.config';

void runService({
  name: 'watermark-processor',
  loadConfig: () => loadWatermarkProcessorConfig(),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.http.port,
  natsUrl: (config) => config.nats.url,
  rpc: false,
});
