import { KeyMode } from '@cp/contracts';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX: Record<KeyMode, string> = { live: 'sk_live_', test: 'sk_test_' };
/** Live keys start with `sk_` (spec 5); we issue them as `sk_live_…`, test keys as `sk_test_…`. */
const KEY_SHAPE = /^sk_[A-Za-z0-9_-]{16,200}$/;

export function generateApiKey(mode: KeyMode): string {
  return `${KEY_PREFIX[mode]}${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function looksLikeApiKey(candidate: string): boolean {
  return KEY_SHAPE.test(candidate);
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
