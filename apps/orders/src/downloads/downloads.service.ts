import { Clock } from '@cp/clock';
import { DomainException, DownloadQuery, DownloadView, ErrorCode, outputFileName, packageFileName } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';
import { SampleFiles } from './sample-files';

export const DOWNLOAD_URL_SECONDS = 300;

/** Spec 4.4 and 4.5: short-lived URLs for the results of a completed embed order. */
@Injectable()
export class DownloadsService {
  constructor(
    private readonly repository: OrdersRepository,
    private readonly storage: ObjectStorage,
    private readonly samples: SampleFiles,
    private readonly clock: Clock,
  ) {}

  async download(query: DownloadQuery): Promise<DownloadView> {
    const aggregate = await this.repository.findOwned(query.orderId, query.caller.accountId, query.caller.mode);
    if (!aggregate) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const { order, outputs, files } = aggregate;
    if (order.status === 'expired' || order.expiresAt <= this.clock.now()) {
      throw new DomainException(ErrorCode.ORDER_EXPIRED);
    }
    if (order.type !== 'watermarkEmbed' || order.status !== 'complete') {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, 'order is not a completed embed order');
    }
    const output = query.outputFileId ? outputs.find((candidate) => candidate.fileId === query.outputFileId) : undefined;
    if (query.outputFileId && !output) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    let target: { bucket: string; key: string; fileName: string };
    if (order.mode === 'test') {
      target = this.samples.forOrder(output ? 1 : outputs.length);
    } else if (output || outputs.length === 1) {
      const single = output ?? outputs[0];
      const input = files.find((file) => file.id === single.inputFileId);
      target = { bucket: this.storage.buckets.outputs, key: single.objectKey ?? '', fileName: outputFileName(input?.fileName ?? 'file', single.fileId) };
    } else {
      target = { bucket: this.storage.buckets.outputs, key: order.packageKey ?? '', fileName: packageFileName(order.id) };
    }
    const downloadUrl = await this.storage.presignGet(target.bucket, target.key, DOWNLOAD_URL_SECONDS, target.fileName);
    return { downloadUrl, expiresInSeconds: DOWNLOAD_URL_SECONDS };
  }
}
