import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a test-key upload URL authorises: one file of one order, until `expiresAt` (epoch ms). */
export interface UploadTokenClaims {
  orderId: string;
  fileId: string;
  expiresAt: number;
}

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

/** `{base64url(claims)}.{base64url(HMAC-SHA256)}`: the token in `/api/v2/test-uploads/{signedToken}`. */
export function signUploadToken(claims: UploadTokenClaims, secret: string): string {
  const body = Buffer.from(JSON.stringify([claims.orderId, claims.fileId, claims.expiresAt])).toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

/** The claims of a valid, unexpired token; null otherwise (the signature is compared in constant time). */
export function verifyUploadToken(token: string, secret: string, nowMs: number): UploadTokenClaims | null {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) {
    return null;
  }
  const expected = mac(secret, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return null;
  }
  try {
    const [orderId, fileId, expiresAt] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string, number];
    if (typeof orderId !== 'string' || typeof fileId !== 'string' || typeof expiresAt !== 'number' || expiresAt < nowMs) {
      return null;
    }
    return { orderId, fileId, expiresAt };
  } catch {
    return null;
  }
}
