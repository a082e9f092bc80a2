import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadRetentionConfig } from './retention.config';

void runService({
  name: 'retention',
  loadConfig: () => loadRetentionConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  rpc: false,
});
