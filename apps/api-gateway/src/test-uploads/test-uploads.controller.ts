import { ErrorCode, RecordTestUploadCommand, Rpcs, TestUploadView } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Controller, HttpCode, Param, Put, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiTokenRouteErrors } from '../http/api-responses.decorator';
import type { Request, Response } from 'express';
import { data, DataEnvelope } from '../http/data-envelope';
import { RecordedTestUploads } from './recorded-test-uploads';
import { closeWithoutReading, readTestUploadBody } from './test-upload-body.reader';
import { TestUploadTokenGuard } from './test-upload-token.guard';

/**
 * Spec 4.8: test keys upload here; the signed token authorises the PUT (checked before the body is read),
 * the body is discarded, at most 256 MiB of it (413 beyond: test-upload-body.reader.ts). The uploads service
 * checks the token again and that its slot exists. Once a token's upload is recorded, a replay gets the same 200
 * at once, without its body being read and without an RPC (RecordedTestUploads).
 */
@ApiTags('uploads')
@Controller('api/v2/test-uploads')
export class TestUploadsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly recorded: RecordedTestUploads,
  ) {}

  @Put(':token')
  @UseGuards(TestUploadTokenGuard)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'uploadTestFile',
    summary: 'Upload sink of test-key orders (spec 4.8)',
    description:
      'The `uploadUrl` of a test-key order points here. No Authorization header: the signed token authorizes the PUT. The body is streamed and discarded. Once an upload is recorded for the token, a repeated PUT gets the same answer without its body being read (the connection is then closed).',
    security: [],
  })
  @ApiParam({ name: 'token', description: 'signed upload token from the `uploadUrl`', schema: { type: 'string' }, example: 'eyJmIjoiMTAwMSJ9.c2lnbmF0dXJl' })
  @ApiBody({ description: 'the file bytes', required: true, schema: { type: 'string', format: 'binary' } })
  @ApiConsumes('application/octet-stream')
  @ApiData('TestUpload', { description: 'the upload was recorded' })
  @ApiTokenRouteErrors(ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  async upload(@Param('token') token: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<DataEnvelope<TestUploadView>> {
    const replayed = this.recorded.find(token);
    if (replayed) {
      closeWithoutReading(request, response);
      return { data: replayed };
    }
    const size = await readTestUploadBody(request, response);
    const command: RecordTestUploadCommand = { token, size };
    const view = await this.rpc.request(Rpcs.uploadsRecordTestUpload, command);
    this.recorded.remember(token, view);
    return data(view);
  }
}
