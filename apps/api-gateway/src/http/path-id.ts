import { digitsFitInt64, DomainException, ErrorCode } from '@cp/contracts';

/**
 * A path id without its pattern's shape ends the request with the route's code (the spec varies it). An id
 * of the right shape whose digits exceed a 64-bit integer names no row either: same code, before any query.
 * Neither does a number written with a leading zero (`01`, `1-01`): ids are issued in canonical decimal, so
 * `01` is not another spelling of order `1` (one resource, one URL, as webhook ids already are), and a client
 * never gets back an `orderId` other than the one it asked for.
 */
export function pathId(value: string, pattern: RegExp, code: ErrorCode): string {
  if (!pattern.test(value) || !digitsFitInt64(value) || hasLeadingZero(value)) {
    throw new DomainException(code, 'path id does not match its pattern, exceeds 64 bits or has a leading zero');
  }
  return value;
}

/** Whether one of the id's numbers (`12`, or both of `12-3`) is written with a leading zero; `0` alone is not. */
function hasLeadingZero(value: string): boolean {
  return value.split('-').some((digits) => digits.length > 1 && digits.startsWith('0'));
}
