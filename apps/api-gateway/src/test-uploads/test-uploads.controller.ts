import { DomainException, ErrorCode, RecordTestUploadCommand, TestUploadView, UploadRpcPatterns } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Controller, HttpCode, Param, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';

/** A test-key upload may be large but nothing is kept; still, no endless streams. */
const MAX_TEST_UPLOAD_BYTES = 256 * 1024 * 1024;

async function drain(request: Request): Promise<number> {
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_TEST_UPLOAD_BYTES) {
      request.destroy();
      throw new DomainException(ErrorCode.PAYLOAD_TOO_LARGE);
    }
  }
  return size;
}

/** Spec 4.8: test keys upload here; the signed token authorises the PUT, the body is discarded. */
@ApiTags('uploads')
@Controller('api/v2/test-uploads')
export class TestUploadsController {
  constructor(private readonly rpc: RpcClient) {}

  @Put(':token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Upload sink for test-key orders (no Authorization header; the token authorises)' })
  async upload(@Param('token') token: string, @Req() request: Request): Promise<TestUploadView> {
    const size = await drain(request);
    const command: RecordTestUploadCommand = { token, size };
    return this.rpc.request<TestUploadView>(UploadRpcPatterns.recordTestUpload, command);
  }
}
