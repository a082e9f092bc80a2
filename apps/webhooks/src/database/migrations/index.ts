import { ERASED_SCOPE_MIGRATIONS } from '@cp/database';
import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310381187 } from './1795310381187-Init';
import { Deliveries1795311109071 } from './1795311109071-Deliveries';
import { DeliveryLinks1795498210157 } from './1795498210157-DeliveryLinks';
import { DeliveryTraceparent1796200000003 } from './1796200000003-DeliveryTraceparent';
import { WebhookEndpointMode1796300000000 } from './1796300000000-WebhookEndpointMode';
import { DeliveryEndedIndex1796310000000 } from './1796310000000-DeliveryEndedIndex';
import { DeliveryOrderIndex1798000000000 } from './1798000000000-DeliveryOrderIndex';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const WEBHOOKS_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310381187, Deliveries1795311109071, DeliveryLinks1795498210157, DeliveryTraceparent1796200000003, WebhookEndpointMode1796300000000, DeliveryEndedIndex1796310000000, DeliveryOrderIndex1798000000000, ...ERASED_SCOPE_MIGRATIONS];
