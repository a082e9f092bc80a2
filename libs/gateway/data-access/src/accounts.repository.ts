import { asTransaction } from '@cp/database';
import { AccountCreatedEvent, AccountErasureRequestedEvent, ApiKeyRevokedEvent, CreditsGrantedEvent, Events, KeyMode, Plan } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
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

/** An account's erasure as the gateway did it: the event the services act on, and the keys it deleted. */
export interface ErasedAccount {
  /** `AccountErasureRequestedEvent.erasureId`, also the event's id (`Nats-Msg-Id`). */
  erasureId: string;
  accountId: string;
  keysDeleted: number;
  /** When the event was written (`EventEnvelope.occurredAt`). */
  requestedAt: string;
}

export interface CreatedAccount {
  account: AccountEntity;
  /** `CreditsGrantedEvent.grantId` of the initial credits, null without any: what the orders service applies later. */
  initialGrantId: string | null;
}

/**
 * Accounts and API keys of the gateway's schema. Account creation and credit grants also write their
 * event to the gateway's outbox in the same transaction (the orders service keeps the credit ledger).
 */
@Injectable()
export class AccountsRepository {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

  /** The account, and the grant of its initial credits (null when it starts with none). */
  async createAccount(name: string, plan: Plan, ownerEmail: string | null, initialCredits: number): Promise<CreatedAccount> {
    return this.dataSource.transaction(async (manager) => {
      const account = await manager.save(manager.create(AccountEntity, { name, plan, ownerEmail }));
      const created: AccountCreatedEvent = { accountId: account.id, name, plan, ownerEmail };
      await this.outbox.add(asTransaction(manager), Events.accountCreated, created);
      if (initialCredits === 0) {
        return { account, initialGrantId: null };
      }
      const grant: CreditsGrantedEvent = { grantId: randomUUID(), accountId: account.id, amount: initialCredits, reason: 'initial credits' };
      await this.outbox.add(asTransaction(manager), Events.creditsGranted, grant);
      return { account, initialGrantId: grant.grantId };
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
      await this.outbox.add(asTransaction(manager), Events.creditsGranted, grant);
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

  /** Revokes the key and, in the same transaction, announces it so every gateway replica drops it from its cache. */
  async revokeKey(keyId: string, at: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const key = await manager.findOneBy(ApiKeyEntity, { id: keyId, revokedAt: IsNull() });
      if (!key) {
        return false;
      }
      const result = await manager.update(ApiKeyEntity, { id: keyId, revokedAt: IsNull() }, { revokedAt: at });
      if ((result.affected ?? 0) === 0) {
        return false;
      }
      const revoked: ApiKeyRevokedEvent = { keyId, accountId: key.accountId };
      await this.outbox.add(asTransaction(manager), Events.apiKeyRevoked, revoked);
      return true;
    });
  }

  /**
   * Erases the account from the gateway's schema and asks every service to do so in its own, in one transaction:
   * its keys deleted (each announced revoked, so every replica drops it from its cache at once and refuses it from
   * then on), the account row (name, owner's e-mail address) deleted, and `evt.gateway.account.erasure-requested`
   * written to the outbox. `name` is the operator's confirmation: the account's name, which they know apart from its
   * id, so a mistyped id erases nothing (a confirmation repeating the id repeated the typo). Null, and nothing erased,
   * when no account has this id and this name (never created, already erased, or another account's id).
   */
  async eraseAccount(accountId: string, name: string): Promise<ErasedAccount | null> {
    return this.dataSource.transaction(async (manager) => {
      const account = await manager.findOne(AccountEntity, { where: { id: accountId }, lock: { mode: 'pessimistic_write' } });
      if (!account || account.name !== name) {
        return null;
      }
      const keys = await manager.find(ApiKeyEntity, { select: { id: true }, where: { accountId } });
      for (const key of keys) {
        const revoked: ApiKeyRevokedEvent = { keyId: key.id, accountId };
        await this.outbox.add(asTransaction(manager), Events.apiKeyRevoked, revoked);
      }
      await manager.delete(ApiKeyEntity, { accountId });
      await manager.delete(AccountEntity, { id: accountId });
      const erasure: AccountErasureRequestedEvent = { erasureId: randomUUID(), accountId };
      const envelope = await this.outbox.add(asTransaction(manager), Events.accountErasureRequested, erasure, erasure.erasureId);
      return { erasureId: erasure.erasureId, accountId, keysDeleted: keys.length, requestedAt: envelope.occurredAt };
    });
  }

  async listKeys(accountId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.getRepository(ApiKeyEntity).find({ where: { accountId }, order: { id: 'ASC' } });
  }

  /** Finds the active key whose hash matches; the stored digest is compared in constant time. */
  async authenticate(candidate: string): Promise<AuthenticatedKey | null> {
    return this.authenticateDigest(hashApiKey(candidate));
  }

  /** `authenticate` for a key already hashed (the gateway's cache is keyed by the digest). */
  async authenticateDigest(digest: string): Promise<AuthenticatedKey | null> {
    // One indexed lookup, plain SQL: this runs for every request that misses the gateway's key cache.
    const rows = await this.dataSource.query<Array<{ key_id: string; key_hash: string; mode: KeyMode; account_id: string; plan: Plan }>>(
      `SELECT k.id::text AS key_id, k.key_hash, k.mode, k.account_id::text AS account_id, a.plan
         FROM api_key k JOIN account a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [digest],
    );
    const row = rows[0];
    if (!row || !sameDigest(row.key_hash, digest)) {
      return null;
    }
    return { keyId: row.key_id, accountId: row.account_id, mode: row.mode, plan: row.plan };
  }
}

export const GATEWAY_DATA_ENTITIES = [AccountEntity, ApiKeyEntity];
