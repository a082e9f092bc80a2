import { createHmac } from 'node:crypto';

export interface SignatureHeaders {
  'X-Service-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Spec 6.4: lowercase hex HMAC-SHA-256 of the raw body, keyed with the secret string as given. */
export function serviceSignature(secret: string, rawBody: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

/**
 * Standard Webhooks key: the bytes after `whsec_`, base64-decoded (what the standardwebhooks and svix
 * libraries do with the same secret string).
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. */
export function standardWebhooksSignature(secret: string, id: string, timestampSeconds: number, rawBody: string): string {
  const digest = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.${rawBody}`, 'utf8').digest('base64');
  return `v1,${digest}`;
}

/** Every signature header of one attempt; the timestamp is the attempt's (so replays can be refused). */
export function signatureHeaders(secret: string, eventId: string, at: Date, rawBody: string): SignatureHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'X-Service-Signature': serviceSignature(secret, rawBody),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhooksSignature(secret, eventId, timestamp, rawBody),
  };
}
