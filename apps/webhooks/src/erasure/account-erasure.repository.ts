import { ErasureScope } from '@cp/contracts';
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

/**
 * Every row of one account in the webhooks schema, deleted in the caller's transaction; of one order of it
 * (`scope.orderId`), only its deliveries (the webhooks and the contact address are the account's).
 */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  async deleteAccount(tx: Transaction, scope: ErasureScope): Promise<ErasedWebhookRows> {
    const { accountId, orderId } = scope;
    if (orderId !== undefined) {
      const ofOrder = await this.db(tx).delete(WebhookDeliveryEntity, { accountId, orderId });
      return { deliveries: ofOrder.affected ?? 0, webhooks: 0, contacts: 0 };
    }
    // Deliveries first: they name their webhook.
    const deliveries = await this.db(tx).delete(WebhookDeliveryEntity, { accountId });
    const webhooks = await this.db(tx).delete(WebhookEndpointEntity, { accountId });
    const contacts = await this.db(tx).delete(AccountContactEntity, { accountId });
    return { deliveries: deliveries.affected ?? 0, webhooks: webhooks.affected ?? 0, contacts: contacts.affected ?? 0 };
  }
}
