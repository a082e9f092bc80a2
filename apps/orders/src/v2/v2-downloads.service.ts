import { Clock } from '@cp/clock';
import { ObjectKeys, packageFileName, V2_DOWNLOAD_URL_SECONDS, V2DownloadUrlsView, V2OrderQuery } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import archiver from 'archiver';
import { Order } from '../domain/order';
import { outputDownloadName } from '../order-types/order-outputs';
import { OrderAccessService } from '../orders/order-access.service';
import { SampleFiles } from '../sandbox/sample-files';

/**
 * Spec 4.17, `GET /api/v2/orders/{orderId}/download-urls`: a URL per output and a ZIP of all of them,
 * valid 1 hour or until `expiresAt` if sooner; then ORDER_EXPIRED. Test keys get the sample files.
 */
@Injectable()
export class V2DownloadsService {
  constructor(
    private readonly access: OrderAccessService,
    private readonly storage: ObjectStorage,
    private readonly samples: SampleFiles,
    private readonly clock: Clock,
  ) {}

  async downloadUrls(query: V2OrderQuery): Promise<V2DownloadUrlsView> {
    const { order, now } = await this.access.downloadable(query.caller, query.orderId);
    const { state, outputs } = order;
    const seconds = Math.max(1, Math.min(V2_DOWNLOAD_URL_SECONDS, Math.floor((state.expiresAt.getTime() - now.getTime()) / 1000)));
    const bucket = this.storage.buckets.outputs;
    const sampleImage = this.samples.forOrder(1);
    const entries = await Promise.all(
      outputs.map(async (output) => {
        const fileName = outputDownloadName(order, output);
        const downloadUrl =
          state.mode === 'test'
            ? await this.storage.presignGet(sampleImage.bucket, sampleImage.key, seconds, sampleImage.fileName)
            : await this.storage.presignGet(bucket, output.objectKey ?? '', seconds, fileName);
        return { fileId: output.fileId, inputFileId: output.inputFileId, fileName, downloadUrl };
      }),
    );
    let archiveUrl: string;
    if (state.mode === 'test') {
      const sampleArchive = this.samples.forOrder(2);
      archiveUrl = await this.storage.presignGet(sampleArchive.bucket, sampleArchive.key, seconds, sampleArchive.fileName);
    } else {
      archiveUrl = await this.storage.presignGet(bucket, await this.archiveKey(order), seconds, packageFileName(order.id));
    }
    return { orderId: order.id, expiresInSeconds: seconds, expiresAt: state.expiresAt.toISOString(), files: entries, archiveUrl };
  }

  /**
   * Orders with two or more outputs already have their ZIP (the package job). A single output is its own
   * v3 download, so its ZIP is made here on first request, under the order prefix (retention deletes it).
   * The key carries the output's ETag, so a ZIP is only ever reused for exactly that output.
   */
  private async archiveKey(aggregate: Order): Promise<string> {
    const { state: order, outputs } = aggregate;
    if (outputs.length > 1 && order.packageKey) {
      return order.packageKey;
    }
    const bucket = this.storage.buckets.outputs;
    const source = await this.storage.stat(bucket, outputs[0]?.objectKey ?? '');
    if (!source) {
      throw new Error(`output of order ${order.id} is not in storage`);
    }
    const key = `${ObjectKeys.orderPrefix(order.accountId, order.id)}archives/${source.etag.replace(/[^A-Za-z0-9]/g, '')}/${packageFileName(order.id)}`;
    if (await this.storage.stat(bucket, key)) {
      return key;
    }
    const archive = archiver('zip');
    const upload = this.storage.put(bucket, key, archive, 'application/zip');
    for (const output of outputs) {
      archive.append(await this.storage.get(bucket, output.objectKey ?? ''), { name: outputDownloadName(aggregate, output) });
    }
    await archive.finalize();
    await upload;
    return key;
  }
}
