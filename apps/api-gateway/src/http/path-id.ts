import { digitsFitInt64, DomainException, ErrorCode } from '@cp/contracts';

/**
 * A path id without its pattern's shape ends the request with the route's code (the spec varies it). An id
 * of the right shape whose digits exceed a 64-bit integer names no row either: same code, before any query.
 */
export function pathId(value: string, pattern: RegExp, code: ErrorCode): string {
  if (!pattern.test(value) || !digitsFitInt64(value)) {
    throw new DomainException(code, 'path id does not match its pattern or exceeds 64 bits');
  }
  return value;
}
