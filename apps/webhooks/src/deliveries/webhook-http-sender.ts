import { EgressClient, EgressError, EgressFailure, publicNetworkFailure } from '@cp/egress';
import { Inject, Injectable } from '@nestjs/common';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';

/** Spec 6.3 / 8: the receiver answers within 5 seconds. */
export const DELIVERY_TIMEOUT_MS = 5000;
/** Our own payloads are a few KiB; anything near this is a bug, not a delivery. */
export const MAX_DELIVERY_BODY_BYTES = 1024 * 1024;
const MAX_ERROR_LENGTH = 500;

export interface SendOutcome {
  success: boolean;
  /** HTTP status, or null when no response came back (timeout, refused, blocked target). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  kind: 'success' | 'http_error' | 'timeout' | 'network_error' | 'blocked';
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** An egress failure as a delivery outcome (kept in the delivery log and the metrics). */
function failureOutcome(error: EgressError, timeoutMs: number): Omit<SendOutcome, 'durationMs'> {
  switch (error.reason) {
    case EgressFailure.BLOCKED_ADDRESS:
      return { success: false, statusCode: null, error: 'target address is not allowed (private, loopback, link-local or metadata)', kind: 'blocked' };
    case EgressFailure.DEADLINE:
      return { success: false, statusCode: null, error: `no response within ${timeoutMs} ms`, kind: 'timeout' };
    case EgressFailure.BAD_STATUS:
      return { success: false, statusCode: error.status ?? null, error: `redirect ${error.status ?? ''} not followed`, kind: 'http_error' };
    case EgressFailure.BAD_URL:
      return { success: false, statusCode: null, error: `invalid URL: ${error.message}`, kind: 'network_error' };
    default:
      return { success: false, statusCode: null, error: publicNetworkFailure(error), kind: 'network_error' };
  }
}

/**
 * One POST through the egress module: never following redirects (3xx is a failure), public addresses only
 * (checked on every resolved address and the connected socket), one deadline for connect, send and status
 * line. Only the status counts: the body is not read, so a receiver cannot hold the slot by streaming.
 */
@Injectable()
export class WebhookHttpSender {
  private readonly egress: EgressClient;

  constructor(@Inject(WEBHOOKS_SETTINGS) settings: WebhooksSettings) {
    this.egress = new EgressClient({
      userAgent: 'ContentProtection-Webhooks/1.0',
      schemes: settings.allowHttp ? ['https:', 'http:'] : ['https:'],
      allowedIps: settings.allowedTargetIps,
    });
  }

  async send(request: SendRequest, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<SendOutcome> {
    const started = Date.now();
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>): SendOutcome => ({
      ...outcome,
      error: outcome.error ? outcome.error.slice(0, MAX_ERROR_LENGTH) : null,
      durationMs: Date.now() - started,
    });
    try {
      const answer = await this.egress.send({
        url: request.url,
        method: 'POST',
        headers: { ...request.headers, 'Content-Type': 'application/json' },
        body: Buffer.from(request.body, 'utf8'),
        deadlineMs: timeoutMs,
        maxRequestBytes: MAX_DELIVERY_BODY_BYTES,
      });
      const ok = answer.status >= 200 && answer.status < 300;
      return finish({ success: ok, statusCode: answer.status, error: ok ? null : `HTTP ${answer.status}`, kind: ok ? 'success' : 'http_error' });
    } catch (error) {
      if (error instanceof EgressError) {
        return finish(failureOutcome(error, timeoutMs));
      }
      throw error;
    }
  }
}
