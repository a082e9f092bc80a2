import { KnownSlotsQuery, KnownSlotsView, RecordTestUploadCommand, RegisterSlotsCommand, TestUploadView, Rpcs, UploadUrlsView, UploadUrlsWithValidityQuery } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { SlotsService } from './slots.service';

@RpcHandlers()
@Controller()
export class SlotsRpcController {
  constructor(private readonly slots: SlotsService) {}

  @RpcHandler(Rpcs.uploadsRegisterSlots)
  register(command: RegisterSlotsCommand): Promise<UploadUrlsView> {
    return this.slots.register(command);
  }

  @RpcHandler(Rpcs.uploadsUploadUrls)
  // The optional `validitySeconds` is used by v2 refresh-urls (1 hour); v3 callers leave it out (900 s).
  uploadUrls(query: UploadUrlsWithValidityQuery): Promise<UploadUrlsView> {
    return this.slots.uploadUrls(query);
  }

  @RpcHandler(Rpcs.uploadsKnownSlots)
  knownSlots(query: KnownSlotsQuery): Promise<KnownSlotsView> {
    return this.slots.knownSlots(query);
  }

  @RpcHandler(Rpcs.uploadsRecordTestUpload)
  recordTestUpload(command: RecordTestUploadCommand): Promise<TestUploadView> {
    return this.slots.recordTestUpload(command);
  }
}
