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

  async create(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointEntity> {
    const entity = this.repo().create({
      accountId: endpoint.owner.accountId,
      mode: endpoint.owner.mode,
      name: endpoint.name,
      url: endpoint.url,
      isActive: true,
      secretCiphertext: endpoint.secretCiphertext,
      createdAt: endpoint.at,
      updatedAt: endpoint.at,
    });
    return this.repo().save(entity);
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
