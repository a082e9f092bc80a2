export const UPLOADS_SCHEMA = 'uploads';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const UPLOADS_ENTITIES: Function[] = [];
