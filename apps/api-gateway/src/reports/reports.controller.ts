import {
  CallerContext,
  DomainException,
  ErrorCode,
  GetReportQuery,
  ORDER_ID_PATTERN,
  REPORT_LOCALES,
  ReportLocale,
  ReportView,
  RequestReportBody,
  RequestReportCommand,
  Rpcs,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Get, HttpStatus, Param, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, ORDER_ID_PARAM } from '../http/api-responses.decorator';
import type { Response } from 'express';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';
import { data, DataEnvelope } from '../http/data-envelope';

/** Path parameters that do not match their pattern are VALIDATION_FAILED (spec 4: v3 report endpoints). */
export function orderIdOf(raw: string): string {
  return pathId(raw, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED);
}

export function localeOf(raw: string): ReportLocale {
  if (!(REPORT_LOCALES as readonly string[]).includes(raw)) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, `unknown report locale ${raw}`);
  }
  return raw as ReportLocale;
}

/** PDF reports of extract orders: thin HTTP layer; the reports service holds the rules. */
@ApiTags('reports (v3)')
@Controller('api/v3/orders/:orderId/reports')
export class ReportsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @ApiOperation({
    operationId: 'requestReport',
    summary: 'Request a PDF report in one locale (spec 4.7)',
    description: 'Extract orders. 202 when a new attempt was queued, 200 with the current report otherwise (also for a failed report that is no longer retryable).',
  })
  @ApiParam(ORDER_ID_PARAM)
  @ApiBody({ type: RequestReportBody, examples: { korean: { value: { locale: 'ko-KR' } } } })
  @ApiData('Report', {
    status: 202,
    description: 'a new attempt was queued',
    headers: { Location: { description: 'the report to poll: `/api/v3/orders/{orderId}/reports/{locale}`', schema: { type: 'string', example: '/api/v3/orders/42/reports/ko-KR' } } },
  })
  @ApiData('Report', { description: 'the current report' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_EXPIRED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.WATERMARK_V2_API_SUNSET, ErrorCode.PAYLOAD_TOO_LARGE)
  async request(
    @Caller() caller: CallerContext,
    @Param('orderId') orderId: string,
    @Body() body: RequestReportBody,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DataEnvelope<ReportView>> {
    const command: RequestReportCommand = { caller, orderId: orderIdOf(orderId), locale: body.locale };
    const result = await this.rpc.request(Rpcs.reportsRequest, command);
    if (result.started) {
      // A 202 points at the status monitor (RFC 9110 15.3.3): the report resource a client polls.
      response.status(HttpStatus.ACCEPTED).setHeader('Location', `/api/v3/orders/${command.orderId}/reports/${command.locale}`);
    } else {
      response.status(HttpStatus.OK);
    }
    return data(result.report);
  }

  @Get(':locale')
  @ApiOperation({
    operationId: 'getReport',
    summary: 'Report status, with a fresh download URL when completed (spec 4.6)',
    description: 'Every call issues a new `download.url` valid 300 seconds; an expired URL gives 403 from storage. Report files download as `<order name>-report-<locale>.pdf`.',
  })
  @ApiParam(ORDER_ID_PARAM)
  @ApiParam({ name: 'locale', schema: { type: 'string', enum: [...REPORT_LOCALES] }, example: 'ko-KR' })
  @ApiData('Report', { description: 'the report' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_EXPIRED, ErrorCode.REPORT_NOT_FOUND, ErrorCode.RESOURCE_NOT_FOUND)
  get(@Caller() caller: CallerContext, @Param('orderId') orderId: string, @Param('locale') locale: string): Promise<DataEnvelope<ReportView>> {
    const query: GetReportQuery = { caller, orderId: orderIdOf(orderId), locale: localeOf(locale) };
    return data(this.rpc.request(Rpcs.reportsGet, query));
  }
}
