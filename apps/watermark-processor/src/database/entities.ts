export const WATERMARK_SCHEMA = 'watermark';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const WATERMARK_ENTITIES: Function[] = [];
