import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Request count of one account in one fixed minute, shared by every gateway replica. */
@Entity({ name: 'rate_limit_window' })
export class RateLimitWindowEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @PrimaryColumn({ name: 'window_start', type: 'timestamptz' })
  windowStart!: Date;

  @Column({ name: 'request_count', type: 'integer' })
  requestCount!: number;
}
