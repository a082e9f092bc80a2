import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The payload of a webhook delivery (spec 6.2). */
export interface WebhookEvent {
  eventId: string;
  eventType: string;
  occurredAt: string;
  data: Record<string, unknown> & { orderId: string; status: string };
}

export class WebhookVerificationError extends Error {
  readonly code = 'WEBHOOK_SIGNATURE_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) {
    return headers.get(name) ?? undefined;
  }
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery over its unmodified raw body and returns the parsed event. With the Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) the `standardwebhooks` library checks the
 * signature and refuses timestamps more than 5 minutes away (replays); otherwise `X-Service-Signature`
 * (hex HMAC-SHA-256 of the body keyed with the whole secret string) is compared in constant time.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): { scheme: 'standard-webhooks' | 'x-service-signature'; event: WebhookEvent } {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (id && timestamp && signature) {
    try {
      new Webhook(secret).verify(body.toString('utf8'), { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature });
    } catch (error) {
      throw new WebhookVerificationError(`Standard Webhooks signature rejected: ${(error as Error).message}`);
    }
    return { scheme: 'standard-webhooks', event: parse(body) };
  }
  const serviceSignature = header(headers, 'x-service-signature');
  if (!serviceSignature) {
    throw new WebhookVerificationError('no signature header');
  }
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = /^[0-9a-f]{64}$/i.test(serviceSignature.trim()) ? Buffer.from(serviceSignature.trim(), 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new WebhookVerificationError('X-Service-Signature does not match');
  }
  return { scheme: 'x-service-signature', event: parse(body) };
}

function parse(body: Buffer): WebhookEvent {
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('signed body is not JSON');
  }
}
