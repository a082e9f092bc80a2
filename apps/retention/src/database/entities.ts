export const RETENTION_SCHEMA = 'retention';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RETENTION_ENTITIES: Function[] = [];
