export const REPORTS_SCHEMA = 'reports';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const REPORTS_ENTITIES: Function[] = [];
