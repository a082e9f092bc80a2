import { randomBytes } from 'node:crypto';
import { generateWebhookSecret, SecretCipher } from './secret-cipher';

describe('webhook secrets at rest', () => {
  const cipher = new SecretCipher(randomBytes(32));

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('round-trips, and the stored form does not contain the secret', () => {
    const secret = generateWebhookSecret();
    const stored = cipher.encrypt(secret, '42');
    expect(stored.startsWith('v1:')).toBe(true);
    expect(stored).not.toContain(secret.slice(6));
    expect(cipher.decrypt(stored, '42')).toBe(secret);
  });

  it('does not decrypt with another key, for another account, or after tampering', () => {
    const stored = cipher.encrypt('whsec_abc', '42');
    expect(() => new SecretCipher(randomBytes(32)).decrypt(stored, '42')).toThrow();
    expect(() => cipher.decrypt(stored, '43')).toThrow();
    const raw = Buffer.from(stored.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => cipher.decrypt(`v1:${raw.toString('base64')}`, '42')).toThrow();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow();
  });
});
