import { DomainException, ErrorCode, ReportView, RequestReportResult, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import type { Response } from 'express';
import { localeOf, orderIdOf, ReportsController } from './reports.controller';

const caller = { accountId: '7', mode: 'live' as const };
const report: ReportView = { orderId: '42', reportType: 'watermarkDetection', locale: 'en-US', status: 'queued', download: null, failure: null };

function controllerAnswering(answer: unknown): { controller: ReportsController; calls: Array<[string, object]> } {
  const calls: Array<[string, object]> = [];
  const rpc = {
    request: ({ pattern }: { pattern: string }, payload: object) => {
      calls.push([pattern, payload]);
      return Promise.resolve(answer);
    },
  } as unknown as RpcClient;
  return { controller: new ReportsController(rpc), calls };
}

function fakeResponse(): { response: Response; status: () => number | undefined } {
  let code: number | undefined;
  const response = { status: (value: number) => ((code = value), response) } as unknown as Response;
  return { response, status: () => code };
}

function codeOf(action: () => unknown): ErrorCode | undefined {
  try {
    action();
  } catch (error) {
    return error instanceof DomainException ? error.code : undefined;
  }
  return undefined;
}

describe('reports HTTP controller', () => {
  it('checks path parameters: order id digits 1-20 within a bigint, a known locale', () => {
    expect(orderIdOf('9223372036854775807')).toBe('9223372036854775807');
    // The pattern's 20 digits allow ids no bigint column holds: refused before any query (was a 500).
    expect(codeOf(() => orderIdOf('12345678901234567890'))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => orderIdOf('123456789012345678901'))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => orderIdOf('12a'))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(localeOf('ja-JP')).toBe('ja-JP');
    expect(codeOf(() => localeOf('ja-jp'))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('answers 202 when an attempt was queued and 200 with the current report otherwise', async () => {
    for (const [started, expected] of [[true, 202], [false, 200]] as const) {
      const answer: RequestReportResult = { started, report };
      const { controller, calls } = controllerAnswering(answer);
      const { response, status } = fakeResponse();
      expect(await controller.request(caller, '42', { locale: 'en-US' }, response)).toEqual({ data: report });
      expect(status()).toBe(expected);
      expect(calls).toEqual([[Rpcs.reportsRequest.pattern, { caller, orderId: '42', locale: 'en-US' }]]);
    }
  });

  it('forwards GET to reports.get', async () => {
    const { controller, calls } = controllerAnswering(report);
    expect(await controller.get(caller, '42', 'en-US')).toEqual({ data: report });
    expect(calls).toEqual([[Rpcs.reportsGet.pattern, { caller, orderId: '42', locale: 'en-US' }]]);
  });
});
