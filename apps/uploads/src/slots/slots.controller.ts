import { RecordTestUploadCommand, RegisterSlotsCommand, TestUploadView, UploadRpcPatterns, UploadUrlsView, UploadUrlsWithValidityQuery } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SlotsService } from './slots.service';

@RpcHandlers()
@Controller()
export class SlotsRpcController {
  constructor(private readonly slots: SlotsService) {}

  @MessagePattern(UploadRpcPatterns.registerSlots)
  register(@Payload() command: RegisterSlotsCommand): Promise<UploadUrlsView> {
    return this.slots.register(command);
  }

  @MessagePattern(UploadRpcPatterns.uploadUrls)
  // The optional `validitySeconds` is used by v2 refresh-urls (1 hour); v3 callers leave it out (900 s).
  uploadUrls(@Payload() query: UploadUrlsWithValidityQuery): Promise<UploadUrlsView> {
    return this.slots.uploadUrls(query);
  }

  @MessagePattern(UploadRpcPatterns.recordTestUpload)
  recordTestUpload(@Payload() command: RecordTestUploadCommand): Promise<TestUploadView> {
    return this.slots.recordTestUpload(command);
  }
}
