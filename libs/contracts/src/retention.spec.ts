import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { EXPIRY_SCHEDULES_MAX_PAGE, ExpirySchedulesPage, ExpirySchedulesQuery } from './retention';

describe('orders.expiry-schedules query', () => {
  // As the RPC server validates a request (RpcValidationPipe).
  const refused = (query: Record<string, unknown>): string[] =>
    validateSync(plainToInstance(ExpirySchedulesQuery, query), { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property);

  const upTo = '2026-11-01T00:00:00.000Z';

  it('takes a first page (no cursor) and a cursor to the microsecond', () => {
    expect(refused({ expiresUpTo: upTo, limit: 500 })).toEqual([]);
    expect(refused({ after: { expiresAt: '2026-10-01T12:00:00.123456Z', orderId: '42' }, expiresUpTo: upTo, limit: EXPIRY_SCHEDULES_MAX_PAGE })).toEqual([]);
  });

  it('refuses a page over the maximum, a time that is not UTC or not a date, a cursor that is not an object', () => {
    expect(refused({ expiresUpTo: upTo, limit: EXPIRY_SCHEDULES_MAX_PAGE + 1 })).toEqual(['limit']);
    expect(refused({ expiresUpTo: upTo, limit: 0 })).toEqual(['limit']);
    expect(refused({ expiresUpTo: '2026-11-01T00:00:00.000+02:00', limit: 1 })).toEqual(['expiresUpTo']);
    expect(refused({ expiresUpTo: '2026-13-01T00:00:00.000Z', limit: 1 })).toEqual(['expiresUpTo']);
    expect(refused({ after: { expiresAt: '2026-10-01T12:00:00.1234567Z', orderId: '42' }, expiresUpTo: upTo, limit: 1 })).toEqual(['after']);
    expect(refused({ after: { expiresAt: '2026-10-01T12:00:00Z', orderId: '4x' }, expiresUpTo: upTo, limit: 1 })).toEqual(['after']);
    expect(refused({ after: [], expiresUpTo: upTo, limit: 1 })).toEqual(['after']);
  });

  it('a full page of the largest schedules stays far under the 1 MiB a NATS reply carries', () => {
    const largest = { orderId: '9'.repeat(20), accountId: '9'.repeat(20), mode: 'live' as const, expiresAt: '2026-10-01T12:00:00.123456Z' };
    const page: ExpirySchedulesPage = { schedules: Array.from({ length: EXPIRY_SCHEDULES_MAX_PAGE }, () => largest) };
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThan(256 * 1024);
  });
});
