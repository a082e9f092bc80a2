import { MessagingTables1795310000000 } from './migrations/1795310000000-MessagingTables';
import { OutboxClaimLease1795645465695 } from './migrations/1795645465695-OutboxClaimLease';
import { OutboxNotifyTrigger1795960000000 } from './migrations/1795960000000-OutboxNotifyTrigger';
import { JobAttempts1796100000000 } from './migrations/1796100000000-JobAttempts';
import { OutboxTraceparent1796200000000 } from './migrations/1796200000000-OutboxTraceparent';
import { OutboxParked1797200000000 } from './migrations/1797200000000-OutboxParked';
import { InboxHandledAt1797200000001 } from './migrations/1797200000001-InboxHandledAt';
import { OutboxShares1798000000000 } from './migrations/1798000000000-OutboxShares';

/** Migrations of the outbox, inbox and job attempt tables; every service lists them before its own. */
export const MESSAGING_MIGRATIONS = [
  MessagingTables1795310000000,
  OutboxClaimLease1795645465695,
  OutboxNotifyTrigger1795960000000,
  JobAttempts1796100000000,
  OutboxTraceparent1796200000000,
  OutboxParked1797200000000,
  InboxHandledAt1797200000001,
  OutboxShares1798000000000,
];
