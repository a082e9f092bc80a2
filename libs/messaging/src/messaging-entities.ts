import { InboxRecordEntity } from './inbox-record.entity';
import { JobAttemptEntity } from './job-attempt.entity';
import { OutboxEventEntity } from './outbox-event.entity';

/** Tables every service's schema has for its outbox, inbox and job attempts; add them to the service's entities. */
export const MESSAGING_ENTITIES = [OutboxEventEntity, InboxRecordEntity, JobAttemptEntity];
