import { InboxRecordEntity } from './inbox-record.entity';
import { OutboxEventEntity } from './outbox-event.entity';

/** Tables every service's schema has for its outbox and inbox; add them to the service's entities. */
export const MESSAGING_ENTITIES = [OutboxEventEntity, InboxRecordEntity];
