import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Requests one gateway replica was allowed to admit for an account, taken from the account's sliding window
 * at `granted_at` (a lease; what the replica did not use is given back). The log of these rows is the window
 * shared by every replica.
 */
@Entity({ name: 'rate_limit_grant' })
@Index(['accountId', 'grantedAt'])
export class RateLimitGrantEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'granted_at', type: 'timestamptz', precision: 3 })
  grantedAt!: Date;

  @Column({ type: 'integer' })
  tokens!: number;

  /** When the replica stopped using the lease: the time of the last request it admitted (null while it may be in use). */
  @Column({ name: 'spent_by', type: 'timestamptz', precision: 3, nullable: true })
  spentBy!: Date | null;
}
