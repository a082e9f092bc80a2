import { AccountCreatedEvent, CreditsGrantedEvent, EventSubjects, KeyMode, Plan } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull } from 'typeorm';
import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey, sameDigest } from './api-key-secret';

export interface IssuedKey {
  id: string;
  mode: KeyMode;
  /** The plaintext key: returned once, never stored. */
  key: string;
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  mode: KeyMode;
  plan: Plan;
}

/**
 * Accounts and API keys of the gateway's schema. Account creation and credit grants also write their
 * event to the gateway's outbox in the same transaction (the orders service keeps the credit ledger).
 */
export class AccountsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

  async createAccount(name: string, plan: Plan, ownerEmail: string | null, initialCredits: number): Promise<AccountEntity> {
    return this.dataSource.transaction(async (manager) => {
      const account = await manager.save(manager.create(AccountEntity, { name, plan, ownerEmail }));
      const created: AccountCreatedEvent = { accountId: account.id, name, plan, ownerEmail };
      await this.outbox.add(manager, EventSubjects.accountCreated, created);
      if (initialCredits !== 0) {
        const grant: CreditsGrantedEvent = { grantId: randomUUID(), accountId: account.id, amount: initialCredits, reason: 'initial credits' };
        await this.outbox.add(manager, EventSubjects.creditsGranted, grant);
      }
      return account;
    });
  }

  async findAccount(accountId: string): Promise<AccountEntity | null> {
    return this.dataSource.getRepository(AccountEntity).findOneBy({ id: accountId });
  }

  async findAccountByName(name: string): Promise<AccountEntity | null> {
    return this.dataSource.getRepository(AccountEntity).findOneBy({ name });
  }

  async grantCredits(accountId: string, amount: number, reason: string): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      const exists = await manager.existsBy(AccountEntity, { id: accountId });
      if (!exists) {
        throw new Error(`account ${accountId} does not exist`);
      }
      const grant: CreditsGrantedEvent = { grantId: randomUUID(), accountId, amount, reason };
      await this.outbox.add(manager, EventSubjects.creditsGranted, grant);
      return grant.grantId;
    });
  }

  async issueKey(accountId: string, mode: KeyMode): Promise<IssuedKey> {
    const key = generateApiKey(mode);
    const saved = await this.dataSource.getRepository(ApiKeyEntity).save({
      accountId,
      mode,
      keyHash: hashApiKey(key),
      keyPrefix: key.slice(0, 12),
      revokedAt: null,
    });
    return { id: saved.id, mode, key };
  }

  async revokeKey(keyId: string, at: Date): Promise<boolean> {
    const result = await this.dataSource.getRepository(ApiKeyEntity).update({ id: keyId, revokedAt: IsNull() }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  async listKeys(accountId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.getRepository(ApiKeyEntity).find({ where: { accountId }, order: { id: 'ASC' } });
  }

  /** Finds the active key whose hash matches; the stored digest is compared in constant time. */
  async authenticate(candidate: string): Promise<AuthenticatedKey | null> {
    const digest = hashApiKey(candidate);
    const row = await this.dataSource
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('key')
      .innerJoin(AccountEntity, 'account', 'account.id = key.accountId')
      .select(['key.id AS key_id', 'key.key_hash AS key_hash', 'key.mode AS mode', 'key.account_id AS account_id', 'account.plan AS plan'])
      .where('key.keyHash = :digest', { digest })
      .andWhere('key.revokedAt IS NULL')
      .getRawOne<{ key_id: string; key_hash: string; mode: KeyMode; account_id: string; plan: Plan }>();
    if (!row || !sameDigest(row.key_hash, digest)) {
      return null;
    }
    return { keyId: row.key_id, accountId: row.account_id, mode: row.mode, plan: row.plan };
  }
}

export const GATEWAY_DATA_ENTITIES = [AccountEntity, ApiKeyEntity];
