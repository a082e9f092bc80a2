import { Transaction, TransactionalRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookOwner } from './webhook-mode';

export interface NewWebhookEndpoint {
  owner: WebhookOwner;
  name: string;
  url: string;
  secretCiphertext: string;
  at: Date;
}

/**
 * Class of the advisory locks that serialise the creations of one owner's webhooks (the two-key form, whose key
 * space never meets the one-key locks of migrations; "WHKS"). Advisory locks are per database, not per schema.
 */
const OWNER_LOCK_CLASS = 0x57484b53;

/**
 * Endpoints are always read through their owner, the account and the key mode together, so one account never
 * sees another's and a key never sees a webhook of the other mode (both answer like an unknown id).
 */
@Injectable()
export class WebhookEndpointsRepository extends TransactionalRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    super();
  }

  private repo(tx?: Transaction) {
    return (tx ? this.db(tx) : this.dataSource.manager).getRepository(WebhookEndpointEntity);
  }

  /**
   * Serialises the creations of one owner's webhooks until `tx` ends (a transaction-scoped advisory lock, released
   * at commit or rollback): a count taken after it stays true until the insert commits, even with no row to lock
   * yet (an owner's first webhook).
   */
  async lockOwner(tx: Transaction, owner: WebhookOwner): Promise<void> {
    await this.db(tx).query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [OWNER_LOCK_CLASS, `${owner.accountId}:${owner.mode}`]);
  }

  /** How many webhooks the owner has, active or not (an inactive one can be activated again at any time). */
  countOwned(tx: Transaction, owner: WebhookOwner): Promise<number> {
    return this.repo(tx).countBy({ accountId: owner.accountId, mode: owner.mode });
  }

  async create(tx: Transaction, endpoint: NewWebhookEndpoint): Promise<WebhookEndpointEntity> {
    const entity = this.repo(tx).create({
      accountId: endpoint.owner.accountId,
      mode: endpoint.owner.mode,
      name: endpoint.name,
      url: endpoint.url,
      isActive: true,
      secretCiphertext: endpoint.secretCiphertext,
      createdAt: endpoint.at,
      updatedAt: endpoint.at,
    });
    return this.repo(tx).save(entity);
  }

  findOwned(owner: WebhookOwner, id: number): Promise<WebhookEndpointEntity | null> {
    return this.repo().findOneBy({ id, accountId: owner.accountId, mode: owner.mode });
  }

  findById(id: number): Promise<WebhookEndpointEntity | null> {
    return this.repo().findOneBy({ id });
  }

  listOwned(owner: WebhookOwner): Promise<WebhookEndpointEntity[]> {
    return this.repo().find({ where: { accountId: owner.accountId, mode: owner.mode }, order: { id: 'ASC' } });
  }

  /** Every active endpoint of the account, both modes: which of them gets an event is `webhookReceives`'s call. */
  listActiveForAccount(tx: Transaction, accountId: string): Promise<WebhookEndpointEntity[]> {
    return this.repo(tx).find({ where: { accountId, isActive: true }, order: { id: 'ASC' } });
  }

  async update(
    owner: WebhookOwner,
    id: number,
    changes: { name: string; url: string; isActive?: boolean; at: Date },
  ): Promise<WebhookEndpointEntity | null> {
    const entity = await this.findOwned(owner, id);
    if (!entity) {
      return null;
    }
    entity.name = changes.name;
    entity.url = changes.url;
    if (changes.isActive !== undefined) {
      entity.isActive = changes.isActive;
    }
    entity.updatedAt = changes.at;
    return this.repo().save(entity);
  }

  /** Deletes the endpoint and, by cascade, its delivery log and pending deliveries. */
  async delete(owner: WebhookOwner, id: number): Promise<boolean> {
    const result = await this.repo().delete({ id, accountId: owner.accountId, mode: owner.mode });
    return (result.affected ?? 0) > 0;
  }
}
