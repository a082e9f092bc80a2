import { MessagingTables1795310000000 } from './migrations/1795310000000-MessagingTables';

/** Migrations of the outbox and inbox tables; every service lists them before its own. */
export const MESSAGING_MIGRATIONS = [MessagingTables1795310000000];
