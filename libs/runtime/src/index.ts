export * from './service-kit.module';
export * from './run-service';
export * from './process-error-handlers';
export * from './cli-data-source';
export * from './periodic-task';
export * from './outbox-relay.loop';
export * from './http-timeouts';
export * from './validation-metadata-cache';
