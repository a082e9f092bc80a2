import { DomainException, ErrorCode } from '@cp/contracts';
import { ArgumentsHost } from '@nestjs/common';
import type { Response } from 'express';
import { HttpExceptionFilter } from './http-exception.filter';

/** An Express response that records what the filter sends. */
function recordingResponse() {
  const sent = { status: 0, body: null as unknown, headers: new Map<string, string>() };
  const response = {
    headersSent: false,
    locals: {},
    hasHeader: (name: string) => sent.headers.has(name.toLowerCase()),
    setHeader: (name: string, value: string) => sent.headers.set(name.toLowerCase(), value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      return this;
    },
  } as unknown as Response;
  const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'r1' }) }) } as unknown as ArgumentsHost;
  return { sent, host };
}

describe('HttpExceptionFilter', () => {
  it('a refusal that says when to try again answers with Retry-After; one that does not, without', () => {
    const later = recordingResponse();
    new HttpExceptionFilter().catch(new DomainException(ErrorCode.RATE_LIMIT_EXCEEDED, 'test orders of the day used up', 3600), later.host);
    expect([later.sent.status, later.sent.body, later.sent.headers.get('retry-after')]).toEqual([429, { code: 'RATE_LIMIT_EXCEEDED' }, '3600']);
    const plain = recordingResponse();
    new HttpExceptionFilter().catch(new DomainException(ErrorCode.VALIDATION_FAILED), plain.host);
    expect([plain.sent.status, plain.sent.headers.has('retry-after')]).toEqual([400, false]);
  });
});
