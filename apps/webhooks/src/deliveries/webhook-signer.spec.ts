import { createHmac } from 'node:crypto';
import { serviceSignature, signatureHeaders, standardWebhooksKey, standardWebhooksSignature } from './webhook-signer';

describe('webhook signatures', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"eventId":"a","eventType":"order.watermarkEmbed.completed","data":{"x":"é"}}';

  it('X-Service-Signature is the lowercase hex HMAC-SHA-256 of the raw body keyed with the secret string', () => {
    const expected = createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(serviceSignature(secret, body)).toBe(expected);
    expect(serviceSignature(secret, body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when one byte of the body or the secret changes', () => {
    expect(serviceSignature(secret, `${body} `)).not.toBe(serviceSignature(secret, body));
    expect(serviceSignature(`${secret}x`, body)).not.toBe(serviceSignature(secret, body));
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test vectors.
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const timestamp = 1614265330;
    const payload = '{"test": 2432232314}';
    expect(standardWebhooksSignature(secret, id, timestamp, payload)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  // The worked example of docs/webhooks.md ("Check your implementation"), computed there with Python's hmac and
  // base64 alone, so a receiver in any language can test itself against the service's own signer.
  it('matches the worked example of the receiver guide (a non-ASCII body, both schemes)', () => {
    const id = '0b6f4c1e-2d7a-4c59-9c1e-6a8d1f3b2e11';
    const raw = `{"eventId":"${id}","eventType":"order.watermarkExtract.completed","data":{"watermarkInfo":{"text":"김민준"}}}`;
    expect(Buffer.byteLength(raw, 'utf8')).toBe(143);
    const headers = signatureHeaders(secret, id, new Date(1772360102 * 1000), raw);
    expect(headers).toEqual({
      'X-Service-Signature': 'e426b7f56842eb96abc7109caa733552ad28834b296f8804b77d58e4fd4eeaf6',
      'webhook-id': id,
      'webhook-timestamp': '1772360102',
      'webhook-signature': 'v1,z7ZK+gThO5zBTX0uZpjQGBQeZr+mV0/3E6Qz+pfEJAk=',
    });
  });

  it('uses the base64 bytes after whsec_ as the Standard Webhooks key', () => {
    expect(standardWebhooksKey(secret)).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
  });

  it('signs every header of one attempt with its own timestamp', () => {
    const at = new Date('2026-03-01T12:00:00.900Z');
    const headers = signatureHeaders(secret, '0b6f4c1e-1111-4222-8333-444455556666', at, body);
    expect(headers['webhook-id']).toBe('0b6f4c1e-1111-4222-8333-444455556666');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(headers['X-Service-Signature']).toBe(serviceSignature(secret, body));
    const expected = createHmac('sha256', standardWebhooksKey(secret))
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });
});
