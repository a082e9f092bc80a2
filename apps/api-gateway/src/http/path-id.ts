import { DomainException, ErrorCode } from '@cp/contracts';

/** A path id without its pattern's shape ends the request with the route's code (the spec varies it). */
export function pathId(value: string, pattern: RegExp, code: ErrorCode): string {
  if (!pattern.test(value)) {
    throw new DomainException(code, `path id ${value} does not match ${pattern.source}`);
  }
  return value;
}
