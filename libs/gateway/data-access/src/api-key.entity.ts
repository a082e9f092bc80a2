import { KeyMode } from '@cp/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** An API key is stored only as its SHA-256; the plaintext is shown once when issued. */
@Entity({ name: 'api_key' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Index()
  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'text' })
  mode!: KeyMode;

  @Index({ unique: true })
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash!: string;

  /** First characters of the key, so operators can tell keys apart without the secret. */
  @Column({ name: 'key_prefix', type: 'text' })
  keyPrefix!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
