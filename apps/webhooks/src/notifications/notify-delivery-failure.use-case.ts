import { Clock } from '@cp/clock';
import { Injectable, Logger } from '@nestjs/common';
import { AccountContactsRepository, DailyNotificationSlot } from './account-contacts.repository';
import { FailureMailer } from './failure-mailer';

/** At most one failure e-mail per account in this time. */
export const NOTICE_INTERVAL_MS = 24 * 60 * 60 * 1000;

export interface DeliveryFailureNotice {
  accountId: string;
  webhookId: number;
  webhookName: string;
  webhookUrl: string;
  eventId: string;
  eventType: string;
  error: string | null;
  statusCode: number | null;
}

/** Spec 6.3.6: when an initial delivery fails, the owner gets an e-mail, at most one per account per 24 hours. */
@Injectable()
export class NotifyDeliveryFailureUseCase {
  private readonly logger = new Logger(NotifyDeliveryFailureUseCase.name);

  constructor(
    private readonly contacts: AccountContactsRepository,
    private readonly mailer: FailureMailer,
    private readonly clock: Clock,
  ) {}

  /**
   * Returns true when an e-mail went out. Never throws: a mail problem must not disturb deliveries.
   * The daily slot is claimed in one short statement, the mail is sent outside any transaction (SMTP can take
   * seconds), and a mail that could not be sent gives the slot back.
   */
  async execute(notice: DeliveryFailureNotice): Promise<boolean> {
    let slot: DailyNotificationSlot | null;
    try {
      const now = this.clock.now();
      slot = await this.contacts.claimDailySlot(notice.accountId, now, new Date(now.getTime() - NOTICE_INTERVAL_MS));
    } catch (error) {
      this.logger.error({ err: error, accountId: notice.accountId }, 'failure e-mail: the daily slot could not be claimed');
      return false;
    }
    if (!slot) {
      return false;
    }
    try {
      await this.mailer.send({ to: slot.ownerEmail, subject: `Webhook delivery failing: ${notice.webhookName}`, text: this.body(notice) });
    } catch (error) {
      this.logger.error({ err: error, accountId: notice.accountId }, 'failure e-mail could not be sent');
      await this.contacts.releaseDailySlot(notice.accountId, slot).catch((releaseError: unknown) => {
        this.logger.error({ err: releaseError, accountId: notice.accountId }, 'failure e-mail: the daily slot could not be given back');
      });
      return false;
    }
    this.logger.log({ accountId: notice.accountId, webhookId: notice.webhookId }, 'failure e-mail sent');
    return true;
  }

  private body(notice: DeliveryFailureNotice): string {
    const outcome = notice.statusCode ? `HTTP ${notice.statusCode}` : (notice.error ?? 'no response');
    return [
      'Hello,',
      '',
      `We could not deliver an event to your webhook "${notice.webhookName}" (${notice.webhookUrl}).`,
      `Event: ${notice.eventType} (${notice.eventId})`,
      `Last result: ${outcome}`,
      '',
      'We keep retrying after 30 minutes, 2 hours and 4 hours. After that the event is marked FAILED in the',
      'delivery event list, where you can resend it (one event, or all failed events of up to 7 days).',
      '',
      'Your endpoint must answer with a 2xx status within 5 seconds.',
      'We send at most one such e-mail per day.',
    ].join('\n');
  }
}
