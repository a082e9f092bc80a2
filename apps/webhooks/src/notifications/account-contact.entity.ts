import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The account owner's address (from `evt.gateway.account.created`) and when we last wrote to it. */
@Entity({ name: 'account_contact' })
export class AccountContactEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'owner_email', type: 'text', nullable: true })
  ownerEmail!: string | null;

  @Column({ name: 'last_failure_email_at', type: 'timestamptz', nullable: true })
  lastFailureEmailAt!: Date | null;
}
