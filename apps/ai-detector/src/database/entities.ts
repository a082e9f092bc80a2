export const AIDETECT_SCHEMA = 'aidetect';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const AIDETECT_ENTITIES: Function[] = [];
