import { ErasedScopeEntity } from '@cp/database';
import { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';
import { AccountContactEntity } from '../notifications/account-contact.entity';

export const WEBHOOKS_SCHEMA = 'webhooks';
export const WEBHOOKS_ENTITIES = [WebhookEndpointEntity, WebhookDeliveryEntity, AccountContactEntity, ErasedScopeEntity];
