import { ExpiredOrderEntity } from '../expiry/expired-order.entity';
import { ReportEntity } from '../reports/report.entity';

export const REPORTS_SCHEMA = 'reports';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const REPORTS_ENTITIES: Function[] = [ReportEntity, ExpiredOrderEntity];
