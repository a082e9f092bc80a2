import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadReportsConfig } from './reports.config';

void runService({
  name: 'reports',
  loadConfig: () => loadReportsConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  rpc: true,
});
