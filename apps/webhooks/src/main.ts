import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadWebhooksConfig } from './webhooks.config';

void runService({
  name: 'webhooks',
  loadConfig: () => loadWebhooksConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  rpc: true,
});
