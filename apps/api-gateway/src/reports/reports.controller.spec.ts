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

function fakeResponse(): { response: Response; status: () => number | undefined; headers: Map<string, string> } {
  let code: number | undefined;
  const headers = new Map<string, string>();
  const response = {
    status: (value: number) => ((code = value), response),
    setHeader: (name: string, value: string) => (headers.set(name.toLowerCase(), value), response),
  } as unknown as Response;
  return { response, status: () => code, headers };
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

  // A 202 without Location left the client to build the status URL from the docs (RFC 9110 15.3.3: the monitor).
  it('points a 202 at the report to poll (Location), a 200 without one', async () => {
    for (const [started, expected] of [[true, '/api/v3/orders/42/reports/ja-JP'], [false, undefined]] as const) {
      const { controller } = controllerAnswering({ started, report } satisfies RequestReportResult);
      const { response, headers } = fakeResponse();
      await controller.request(caller, '42', { locale: 'ja-JP' }, response);
      expect(headers.get('location')).toBe(expected);
    }
  });

  it('forwards GET to reports.get', async () => {
    const { controller, calls } = controllerAnswering(report);
    expect(await controller.get(caller, '42', 'en-US')).toEqual({ data: report });
    expect(calls).toEqual([[Rpcs.reportsGet.pattern, { caller, orderId: '42', locale: 'en-US' }]]);
  });
});
