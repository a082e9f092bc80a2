import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';
import { AccountContactEntity } from '../notifications/account-contact.entity';

/** What an account's erasure deleted from the webhooks schema. */
export interface ErasedWebhookRows {
  deliveries: number;
  webhooks: number;
  contacts: number;
}

/** Every row of one account in the webhooks schema, deleted in the caller's transaction. */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  async deleteAccount(tx: Transaction, accountId: string): Promise<ErasedWebhookRows> {
    // Deliveries first: they name their webhook.
    const deliveries = await this.db(tx).delete(WebhookDeliveryEntity, { accountId });
    const webhooks = await this.db(tx).delete(WebhookEndpointEntity, { accountId });
    const contacts = await this.db(tx).delete(AccountContactEntity, { accountId });
    return { deliveries: deliveries.affected ?? 0, webhooks: webhooks.affected ?? 0, contacts: contacts.affected ?? 0 };
  }
}
