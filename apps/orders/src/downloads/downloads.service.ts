import { DomainException, DownloadQuery, DownloadView, ErrorCode } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderAccessService } from '../orders/order-access.service';
import { KeyModesService } from '../sandbox/key-modes.service';
import { ObjectUrlsService } from '../orders/object-urls.service';

export const DOWNLOAD_URL_SECONDS = 300;

/** Spec 4.4 and 4.5: short-lived URLs for the results of a completed order with result files. */
@Injectable()
export class DownloadsService {
  constructor(
    private readonly access: OrderAccessService,
    private readonly urls: ObjectUrlsService,
    private readonly modes: KeyModesService,
  ) {}

  async download(query: DownloadQuery): Promise<DownloadView> {
    const { order } = await this.access.downloadable(query.caller, query.orderId);
    const output = query.outputFileId ? order.outputs.find((candidate) => candidate.fileId === query.outputFileId) : undefined;
    if (query.outputFileId && !output) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const target = this.modes.of(order).downloadTarget(order, output);
    const downloadUrl = await this.urls.download(order, target, DOWNLOAD_URL_SECONDS);
    return { downloadUrl, expiresInSeconds: DOWNLOAD_URL_SECONDS };
  }
}
