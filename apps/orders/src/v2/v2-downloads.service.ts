import { StoredObjectRef, V2_DOWNLOAD_URL_SECONDS, V2DownloadUrlsView, V2OrderQuery } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { outputDownloadName } from '../order-types/order-outputs';
import { OrderAccessService } from '../orders/order-access.service';
import { ObjectUrlsService } from '../orders/object-urls.service';
import { KeyModesService } from '../sandbox/key-modes.service';

/**
 * Spec 4.17, `GET /api/v2/orders/{orderId}/download-urls`: a URL per output and a ZIP of all of them,
 * valid 1 hour or until `expiresAt` if sooner; then ORDER_EXPIRED. Test keys get the sample files.
 */
@Injectable()
export class V2DownloadsService {
  constructor(
    private readonly access: OrderAccessService,
    private readonly urls: ObjectUrlsService,
    private readonly modes: KeyModesService,
  ) {}

  async downloadUrls(query: V2OrderQuery): Promise<V2DownloadUrlsView> {
    const { order, now } = await this.access.downloadable(query.caller, query.orderId);
    const { state, outputs } = order;
    const seconds = Math.max(1, Math.min(V2_DOWNLOAD_URL_SECONDS, Math.floor((state.expiresAt.getTime() - now.getTime()) / 1000)));
    const mode = this.modes.of(order);
    const presign = (target: StoredObjectRef) => this.urls.download(order, target, seconds);
    const files = await Promise.all(
      outputs.map(async (output) => ({
        fileId: output.fileId,
        inputFileId: output.inputFileId,
        fileName: outputDownloadName(order, output),
        downloadUrl: await presign(mode.downloadTarget(order, output)),
      })),
    );
    const archiveUrl = await presign(await mode.archiveTarget(order));
    return { orderId: order.id, expiresInSeconds: seconds, expiresAt: state.expiresAt.toISOString(), files, archiveUrl };
  }
}
