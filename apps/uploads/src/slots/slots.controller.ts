import { RecordTestUploadCommand, RegisterSlotsCommand, TestUploadView, UploadRpcPatterns, UploadUrlsQuery, UploadUrlsView } from '@cp/contracts';
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
  uploadUrls(@Payload() query: UploadUrlsQuery): Promise<UploadUrlsView> {
    return this.slots.uploadUrls(query);
  }

  @MessagePattern(UploadRpcPatterns.recordTestUpload)
  recordTestUpload(@Payload() command: RecordTestUploadCommand): Promise<TestUploadView> {
    return this.slots.recordTestUpload(command);
  }
}
