import { ReportLocale, ReportStatus } from '@cp/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The `reports[]` of an order view, kept from the reports service's status events. */
@Entity({ name: 'order_report' })
export class OrderReportEntity {
  @PrimaryColumn({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @PrimaryColumn({ type: 'text' })
  locale!: ReportLocale;

  @Column({ type: 'text' })
  status!: ReportStatus;

  @Column({ name: 'changed_at', type: 'timestamptz' })
  changedAt!: Date;
}
