export const WEBHOOKS_SCHEMA = 'webhooks';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const WEBHOOKS_ENTITIES: Function[] = [];
