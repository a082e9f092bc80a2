import { MessagingTables1795310000000 } from './migrations/1795310000000-MessagingTables';
import { OutboxClaimLease1795645465695 } from './migrations/1795645465695-OutboxClaimLease';
import { OutboxNotifyTrigger1795960000000 } from './migrations/1795960000000-OutboxNotifyTrigger';

/** Migrations of the outbox and inbox tables; every service lists them before its own. */
export const MESSAGING_MIGRATIONS = [MessagingTables1795310000000, OutboxClaimLease1795645465695, OutboxNotifyTrigger1795960000000];
