export * from './tracing-sdk';
export * from './spans';
export * from './trace-headers';
export * from './http-span.middleware';
