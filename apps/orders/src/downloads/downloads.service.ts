import { DomainException, DownloadQuery, DownloadView, ErrorCode, packageFileName, StoredObjectRef } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import { outputRef } from '../order-types/order-outputs';
import { OrderAccessService } from '../orders/order-access.service';
import { SampleFiles } from '../sandbox/sample-files';

export const DOWNLOAD_URL_SECONDS = 300;

/** Spec 4.4 and 4.5: short-lived URLs for the results of a completed order with result files. */
@Injectable()
export class DownloadsService {
  constructor(
    private readonly access: OrderAccessService,
    private readonly storage: ObjectStorage,
    private readonly samples: SampleFiles,
  ) {}

  async download(query: DownloadQuery): Promise<DownloadView> {
    const { order } = await this.access.downloadable(query.caller, query.orderId);
    const { state, outputs } = order;
    const output = query.outputFileId ? outputs.find((candidate) => candidate.fileId === query.outputFileId) : undefined;
    if (query.outputFileId && !output) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    let target: StoredObjectRef;
    if (state.mode === 'test') {
      target = this.samples.forOrder(output ? 1 : outputs.length);
    } else if (output || outputs.length === 1) {
      target = outputRef(order, output ?? outputs[0], this.storage.buckets.outputs);
    } else {
      target = { bucket: this.storage.buckets.outputs, key: state.packageKey ?? '', fileName: packageFileName(order.id) };
    }
    const downloadUrl = await this.storage.presignGet(target.bucket, target.key, DOWNLOAD_URL_SECONDS, target.fileName);
    return { downloadUrl, expiresInSeconds: DOWNLOAD_URL_SECONDS };
  }
}
