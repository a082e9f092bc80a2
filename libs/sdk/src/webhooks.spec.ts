import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ eventId: 'a1b2', eventType: 'order.watermarkEmbed.completed', occurredAt: '2026-11-23T10:00:00Z', data: { orderId: '42', status: 'complete' } });

function standardHeaders(payload: string, key = secret, at = new Date()): Record<string, string> {
  const signature = new Webhook(key).sign('a1b2', at, payload);
  return { 'webhook-id': 'a1b2', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

describe('verifyWebhook', () => {
  it('accepts X-Service-Signature (hex HMAC-SHA-256 keyed with the whole secret) and returns the event', () => {
    const signature = createHmac('sha256', secret).update(body).digest('hex');
    const verified = verifyWebhook(Buffer.from(body), { 'X-Service-Signature': signature }, secret);
    expect(verified.scheme).toBe('x-service-signature');
    expect(verified.event.data.orderId).toBe('42');
  });

  it('accepts the Standard Webhooks headers, also given as a Headers object', () => {
    expect(verifyWebhook(body, standardHeaders(body), secret).scheme).toBe('standard-webhooks');
    expect(verifyWebhook(body, new Headers(standardHeaders(body)), secret).event.eventId).toBe('a1b2');
  });

  it.each([
    ['a changed body', () => verifyWebhook(body.replace('42', '43'), { 'x-service-signature': createHmac('sha256', secret).update(body).digest('hex') }, secret)],
    ['another secret', () => verifyWebhook(body, { 'x-service-signature': createHmac('sha256', 'whsec_other').update(body).digest('hex') }, secret)],
    ['a malformed signature', () => verifyWebhook(body, { 'x-service-signature': 'zz' }, secret)],
    ['no signature at all', () => verifyWebhook(body, {}, secret)],
    ['a changed body (Standard Webhooks)', () => verifyWebhook(body.replace('42', '43'), standardHeaders(body), secret)],
    ['a replayed old delivery (Standard Webhooks)', () => verifyWebhook(body, standardHeaders(body, secret, new Date(Date.now() - 3_600_000)), secret)],
  ])('rejects %s', (_name, verify) => {
    expect(verify).toThrow(WebhookVerificationError);
  });
});
