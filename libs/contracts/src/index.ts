// The DTOs use decorator metadata (class-transformer, class-validator).
import 'reflect-metadata';

export * from './accounts';
export * from './anti-ai';
export * from './anti-ai-orders';
export * from './envelope';
export * from './errors';
export * from './order-failure-messages';
export * from './order-values';
export * from './orders';
export * from './embed-orders';
export * from './extract-orders';
export * from './object-keys';
export * from './reports';
export * from './uploads';
export * from './validators';
export * from './input-hygiene';
export * from './watermark-jobs';
export * from './order-events';
export * from './webhooks';
export * from './subjects';
export * from './message-contracts';
export * from './catalog';
export * from './order-timeline';
export * from './v2';
export * from './retention';
export * from './ai-detection';
export * from './ai-detection-orders';
