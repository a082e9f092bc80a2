import { keysNotRemoved } from './object-storage';
import { objectKeyOf, toStorageNotification } from './storage-event';
import { signUploadToken, verifyUploadToken } from './upload-token';

describe('storage notifications', () => {
  const record = (key: string) => ({ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'cp-inputs' }, object: { key, size: 3 } } });

  it('decodes MinIO-encoded keys and leaves plain keys alone', () => {
    expect(objectKeyOf(record('1/2/inputs/3/my+photo%20%28final%29.jpg'))).toBe('1/2/inputs/3/my photo (final).jpg');
    expect(objectKeyOf(record('1/2/inputs/3/photo.jpg'))).toBe('1/2/inputs/3/photo.jpg');
    expect(objectKeyOf(record('1/2/inputs/3/100%.jpg'))).toBe('1/2/inputs/3/100%.jpg');
  });

  it('wraps a record in the MinIO notification shape', () => {
    expect(toStorageNotification(record('k'))).toEqual({ EventName: 's3:ObjectCreated:Put', Key: 'cp-inputs/k', Records: [record('k')] });
  });

  it('encodes a raw key as MinIO does, so that decoding it gives the key back', () => {
    // the outside review's names: a raw `%22` was decoded to `"`, a raw `+` to a space
    for (const key of [`1/2/inputs/3/x%22y'z.png`, '1/2/inputs/3/photo+edit.png', '1/2/inputs/3/100%.jpg', '1/2/inputs/3/my photo (final)!*.jpg', '1/2/inputs/3/한국어 🎉.png']) {
      const notification = toStorageNotification(record(key));
      expect([notification.Key, objectKeyOf(notification.Records[0])]).toEqual([`cp-inputs/${key}`, key]);
    }
    expect(toStorageNotification(record('1/2/a b+c(d).png')).Records[0].s3.object.key).toBe('1%2F2%2Fa+b%2Bc%28d%29.png');
  });
});

describe('test upload tokens', () => {
  const claims = { orderId: '12', fileId: '34', expiresAt: 10_000 };

  it('verifies its own tokens until they expire', () => {
    const token = signUploadToken(claims, 'secret-secret-secret');
    expect(verifyUploadToken(token, 'secret-secret-secret', 9_999)).toEqual(claims);
    expect(verifyUploadToken(token, 'secret-secret-secret', 10_001)).toBeNull();
  });

  it('refuses another secret, tampering and garbage', () => {
    const token = signUploadToken(claims, 'secret-secret-secret');
    expect(verifyUploadToken(token, 'other-secret-secret', 0)).toBeNull();
    const [body, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify(['12', '35', 10_000])).toString('base64url');
    expect(verifyUploadToken(`${forged}.${signature}`, 'secret-secret-secret', 0)).toBeNull();
    expect(verifyUploadToken(`${body}.${signature}.x`, 'secret-secret-secret', 0)).toBeNull();
    expect(verifyUploadToken('', 'secret-secret-secret', 0)).toBeNull();
  });
});

describe('bulk delete results', () => {
  const keys = ['1/2/inputs/3/a.png', '1/2/outputs/3-1/a.png', '123'];

  it('names the keys storage reported as not deleted (both shapes of the error list, all-digit keys parsed as numbers)', () => {
    expect(keysNotRemoved(keys, [])).toEqual([]);
    expect(keysNotRemoved(keys, [null, { Key: '1/2/outputs/3-1/a.png' }])).toEqual(['1/2/outputs/3-1/a.png']);
    expect(keysNotRemoved(keys, [{ Error: { Key: '1/2/inputs/3/a.png' } }, { Key: 123 }])).toEqual(['1/2/inputs/3/a.png', '123']);
  });

  it('counts every key as not deleted when an error names no key it asked for', () => {
    expect(keysNotRemoved(keys, [{ Error: {} }])).toEqual(keys);
    expect(keysNotRemoved(keys, [{ Key: 'other' }])).toEqual(keys);
  });
});
