import 'reflect-metadata';
import { runService } from '@cp/runtime';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './gateway.config';
import { configureGatewayPipeline } from './http-pipeline';

void runService({
  name: 'api-gateway',
  loadConfig: () => loadGatewayConfig(),
  module: (config) => AppModule.forRoot(config),
  http: (config) => config.http,
  natsUrl: (config) => config.nats.url,
  rpc: false,
  configure: configureGatewayPipeline,
});
