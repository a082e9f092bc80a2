import { MessagingTables1795310000000 } from './migrations/1795310000000-MessagingTables';
import { OutboxClaimLease1795645465695 } from './migrations/1795645465695-OutboxClaimLease';

/** Migrations of the outbox and inbox tables; every service lists them before its own. */
export const MESSAGING_MIGRATIONS = [MessagingTables1795310000000, OutboxClaimLease1795645465695];
