import type { KeyMode } from '@cp/contracts';
import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A receiver URL of one account. The signing secret is stored only encrypted (AES-256-GCM). */
@Entity({ name: 'webhook_endpoint' })
@Index('idx_webhook_endpoint_account', ['accountId'])
@Check('ck_webhook_endpoint_mode', `"mode" IN ('live', 'test')`)
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  url!: string;

  /**
   * The mode of the key that created it: only keys of this mode see and manage it, and a `test` webhook
   * receives only test orders' events (`webhook-mode.ts`). Every insert of this release states it (the
   * repository's `owner` is required); the column's default, `live`, is for replicas of the previous release
   * during a rolling update.
   */
  @Column({ type: 'text', default: 'live' })
  mode!: KeyMode;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive!: boolean;

  /** `v1:` + base64(iv | auth tag | ciphertext); the account id is bound in as associated data. */
  @Column({ name: 'secret_ciphertext', type: 'text' })
  secretCiphertext!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
