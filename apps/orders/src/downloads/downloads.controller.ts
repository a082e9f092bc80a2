import { DownloadQuery, DownloadView, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { DownloadsService } from './downloads.service';

/** Spec 4.4: the download of a completed order's results, whatever its type. */
@RpcHandlers()
@Controller()
export class DownloadsRpcController {
  constructor(private readonly downloads: DownloadsService) {}

  @RpcHandler(Rpcs.ordersDownload)
  download(query: DownloadQuery): Promise<DownloadView> {
    return this.downloads.download(query);
  }
}
