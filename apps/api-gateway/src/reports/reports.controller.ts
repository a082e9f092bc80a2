import {
  CallerContext,
  DomainException,
  ErrorCode,
  GetReportQuery,
  ORDER_ID_PATTERN,
  REPORT_LOCALES,
  ReportLocale,
  ReportRpcPatterns,
  ReportView,
  RequestReportBody,
  RequestReportCommand,
  RequestReportResult,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Get, HttpStatus, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';

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
    summary: 'Request a PDF report in one locale (spec 4.7): 202 when a new attempt was queued, 200 with the current report otherwise',
  })
  async request(
    @Caller() caller: CallerContext,
    @Param('orderId') orderId: string,
    @Body() body: RequestReportBody,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ReportView> {
    const command: RequestReportCommand = { caller, orderId: orderIdOf(orderId), locale: body.locale };
    const result = await this.rpc.request<RequestReportResult>(ReportRpcPatterns.request, command);
    response.status(result.started ? HttpStatus.ACCEPTED : HttpStatus.OK);
    return result.report;
  }

  @Get(':locale')
  @ApiOperation({ summary: 'Report status and a fresh 300-second download URL when completed (spec 4.6)' })
  get(@Caller() caller: CallerContext, @Param('orderId') orderId: string, @Param('locale') locale: string): Promise<ReportView> {
    const query: GetReportQuery = { caller, orderId: orderIdOf(orderId), locale: localeOf(locale) };
    return this.rpc.request<ReportView>(ReportRpcPatterns.get, query);
  }
}
