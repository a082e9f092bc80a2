import { EmbedJob } from '@cp/contracts';
import { ObjectStorage, writeZipPackage } from '@cp/storage';
import { Injectable, Logger } from '@nestjs/common';

/**
 * The ZIP of an order's outputs, made by the job of its last output (issue 32). An embed job of a small order
 * with several outputs carries the package (`EmbedJob.package`); once its own output is stored, it looks for
 * every other entry in storage and, if all are there, writes the ZIP before reporting its output, so the order
 * completes with its last output instead of after a package job. Of two jobs that finish together, at least one
 * sees the other's output (each looks only after its own is stored); when both do, both write the same ZIP.
 * Anything short of a stored ZIP (an output still missing, storage failing while packing) is no error: the
 * output is reported without a package and the orders service sends the package job as before.
 */
@Injectable()
export class LastOutputPackageService {
  private readonly logger = new Logger(LastOutputPackageService.name);

  constructor(private readonly storage: ObjectStorage) {}

  /** The key of the ZIP this job wrote, or undefined (not the last output, no package asked for, packing failed). */
  async packIfLast(job: EmbedJob): Promise<string | undefined> {
    const zip = job.package;
    if (!zip) {
      return undefined;
    }
    const others = zip.entries.filter((entry) => entry.bucket !== job.output.bucket || entry.key !== job.output.key);
    try {
      const stored = await Promise.all(others.map((entry) => this.storage.stat(entry.bucket, entry.key)));
      if (stored.some((info) => info === null)) {
        return undefined;
      }
      await writeZipPackage(this.storage, zip.entries, zip.output);
      return zip.output.key;
    } catch (error) {
      this.logger.warn({ err: error, orderId: job.orderId }, 'the ZIP was not made with the last output; the package job will make it');
      return undefined;
    }
  }
}
