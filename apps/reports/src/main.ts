import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadReportsConfig } from './reports.config';

void runService({
  name: 'reports',
  loadConfig: () => loadReportsConfig(),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.http.port,
  natsUrl: (config) => config.nats.url,
  rpc: false,
});
