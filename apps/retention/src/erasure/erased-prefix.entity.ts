import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A storage prefix an operator erased (an account's `{accountId}/`, an order's `{accountId}/{orderId}/`), listed
 * and emptied again later: a job of it already queued or running when it was erased (an embed, a report render, a
 * URL fetch, a package) may still store an object under it, and nothing else would ever delete that object (its
 * expiry schedule went with the erasure). Looked at once `recheckAt` comes, then once more at `finalRecheckAt`;
 * the row goes after the last look that left the prefix empty.
 */
@Entity({ name: 'erased_prefix' })
@Index('idx_erased_prefix_due', ['recheckAt'])
export class ErasedPrefixEntity {
  @PrimaryColumn({ type: 'text' })
  prefix!: string;

  /** The next look: the erasure + the longest a job can still run (`RETENTION_FAILED_ORDER_GRACE_HOURS`). */
  @Column({ name: 'recheck_at', type: 'timestamptz' })
  recheckAt!: Date;

  /** The last look: a job that waited in the JOBS stream for its whole age (a worker down) has run by then. */
  @Column({ name: 'final_recheck_at', type: 'timestamptz' })
  finalRecheckAt!: Date;

  /** Set while a replica lists and deletes the prefix (outside any transaction); also the lease's identity. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil!: Date | null;

  /** Objects found and deleted by the looks after the erasure (late writes). */
  @Column({ name: 'objects_deleted', type: 'int', default: 0 })
  objectsDeleted!: number;
}
