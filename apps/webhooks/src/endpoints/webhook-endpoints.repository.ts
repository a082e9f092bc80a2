import { Transaction, TransactionalRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export interface NewWebhookEndpoint {
  accountId: string;
  name: string;
  url: string;
  secretCiphertext: string;
  at: Date;
}

/** Endpoints are always read through the owning account, so one account never sees another's. */
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
      accountId: endpoint.accountId,
      name: endpoint.name,
      url: endpoint.url,
      isActive: true,
      secretCiphertext: endpoint.secretCiphertext,
      createdAt: endpoint.at,
      updatedAt: endpoint.at,
    });
    return this.repo().save(entity);
  }

  findForAccount(accountId: string, id: number): Promise<WebhookEndpointEntity | null> {
    return this.repo().findOneBy({ id, accountId });
  }

  findById(id: number): Promise<WebhookEndpointEntity | null> {
    return this.repo().findOneBy({ id });
  }

  listForAccount(accountId: string): Promise<WebhookEndpointEntity[]> {
    return this.repo().find({ where: { accountId }, order: { id: 'ASC' } });
  }

  listActiveForAccount(tx: Transaction, accountId: string): Promise<WebhookEndpointEntity[]> {
    return this.repo(tx).find({ where: { accountId, isActive: true }, order: { id: 'ASC' } });
  }

  async update(
    accountId: string,
    id: number,
    changes: { name: string; url: string; isActive?: boolean; at: Date },
  ): Promise<WebhookEndpointEntity | null> {
    const entity = await this.findForAccount(accountId, id);
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
  async delete(accountId: string, id: number): Promise<boolean> {
    const result = await this.repo().delete({ id, accountId });
    return (result.affected ?? 0) > 0;
  }
}
