import { Clock } from '@cp/clock';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTransport, Transporter } from 'nodemailer';
import { MAIL_SETTINGS, MailSettings } from '../webhooks.config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * The SMTP URL with connect, greeting, socket and DNS limits: nodemailer's own allow minutes per stage, and
 * a stuck server must not hold a delivery worker. nodemailer reads a URL's query as transport options (and
 * ignores other options given beside a URL); a limit the operator wrote into the URL is kept.
 */
export function withTimeouts(smtpUrl: string, timeoutMs: number): string {
  const url = new URL(smtpUrl);
  for (const option of ['connectionTimeout', 'greetingTimeout', 'socketTimeout', 'dnsTimeout']) {
    if (!url.searchParams.has(option)) {
      url.searchParams.set(option, String(timeoutMs));
    }
  }
  return url.toString();
}

/**
 * Sends through SMTP when SMTP_URL is set; otherwise renders the message and writes it as an .eml file to
 * MAIL_OUTBOX_DIR (local development and tests read it there).
 */
@Injectable()
export class FailureMailer {
  private readonly logger = new Logger(FailureMailer.name);
  private readonly smtp?: Transporter;
  private readonly file?: Transporter;

  constructor(
    @Inject(MAIL_SETTINGS) private readonly settings: MailSettings,
    private readonly clock: Clock,
  ) {
    if (settings.smtpUrl) {
      this.smtp = createTransport(withTimeouts(settings.smtpUrl, settings.timeoutMs));
    } else {
      this.file = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    }
  }

  async send(message: MailMessage): Promise<void> {
    const mail = { from: this.settings.from, to: message.to, subject: message.subject, text: message.text };
    if (this.smtp) {
      await this.smtp.sendMail(mail);
      return;
    }
    const info = (await this.file?.sendMail(mail)) as { message: Buffer; messageId: string } | undefined;
    if (!info) {
      return;
    }
    await mkdir(this.settings.outboxDir, { recursive: true });
    const name = `${this.clock.nowMs()}-${info.messageId.replace(/[^A-Za-z0-9.-]/g, '')}.eml`;
    const file = path.join(this.settings.outboxDir, name);
    await writeFile(file, info.message);
    // The recipient is the account owner's e-mail address (personal data): the file names the mail, the log does not.
    this.logger.log({ file }, 'mail written to the local outbox');
  }
}
