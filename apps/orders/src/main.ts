import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadOrdersConfig } from './orders.config';

void runService({
  name: 'orders',
  loadConfig: () => loadOrdersConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  rpc: true,
});
