import { DomainException, ErrorCode, ORDER_ID_PATTERN } from '@cp/contracts';
import { pathId } from './path-id';

const OUTPUT_FILE_ID = /^[0-9]+-[0-9]+$/;

function codeOf(run: () => unknown): ErrorCode | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof DomainException ? error.code : undefined;
  }
}

describe('pathId', () => {
  it('passes a canonical id through', () => {
    expect(pathId('1', ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND)).toBe('1');
    expect(pathId('0', ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND)).toBe('0');
    expect(pathId('9223372036854775807', ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND)).toBe('9223372036854775807');
    expect(pathId('10-2', OUTPUT_FILE_ID, ErrorCode.VALIDATION_FAILED)).toBe('10-2');
  });

  it('refuses an id off its pattern or beyond 64 bits with the route code', () => {
    expect(codeOf(() => pathId('abc', ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(codeOf(() => pathId('9223372036854775808', ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  // `/api/v3/orders/01` answered order 1 (with `orderId: "1"`) while `/files/01-01/download` and webhook `01` were 404:
  // one resource had many URLs, and a client comparing the id it sent with the one it got saw another.
  it.each([['01'], ['007'], ['00000000000000000001']])('refuses the order id %s written with a leading zero', (id) => {
    expect(codeOf(() => pathId(id, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(codeOf(() => pathId(id, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it.each([['01-1'], ['1-01'], ['00-1']])('refuses the output file id %s written with a leading zero', (id) => {
    expect(codeOf(() => pathId(id, OUTPUT_FILE_ID, ErrorCode.VALIDATION_FAILED))).toBe(ErrorCode.VALIDATION_FAILED);
  });
});
