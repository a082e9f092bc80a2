import { StoredObjectRef } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable, OnModuleInit } from '@nestjs/common';
import archiver from 'archiver';
import sharp from 'sharp';

const SAMPLE_IMAGE_KEY = 'samples/sample-watermarked.png';
const SAMPLE_ARCHIVE_KEY = 'samples/sample-watermarked.zip';

/** Test-key orders download these fixed files (spec 4.17); they are written once at start. */
@Injectable()
export class SampleFiles implements OnModuleInit {
  constructor(private readonly storage: ObjectStorage) {}

  async onModuleInit(): Promise<void> {
    const bucket = this.storage.buckets.outputs;
    if (!(await this.storage.stat(bucket, SAMPLE_IMAGE_KEY))) {
      await this.storage.put(bucket, SAMPLE_IMAGE_KEY, await this.sampleImage(), 'image/png');
    }
    if (!(await this.storage.stat(bucket, SAMPLE_ARCHIVE_KEY))) {
      await this.storage.put(bucket, SAMPLE_ARCHIVE_KEY, await this.sampleArchive(), 'application/zip');
    }
  }

  forOrder(outputCount: number): StoredObjectRef {
    const bucket = this.storage.buckets.outputs;
    return outputCount > 1
      ? { bucket, key: SAMPLE_ARCHIVE_KEY, fileName: 'sample-watermarked.zip' }
      : { bucket, key: SAMPLE_IMAGE_KEY, fileName: 'sample-watermarked.png' };
  }

  private sampleImage(): Promise<Buffer> {
    return sharp({ create: { width: 320, height: 200, channels: 3, background: '#3b6ea5' } }).png().toBuffer();
  }

  private async sampleArchive(): Promise<Buffer> {
    const image = await this.sampleImage();
    const archive = archiver('zip');
    const chunks: Buffer[] = [];
    archive.on('data', (chunk: Buffer) => chunks.push(chunk));
    const finished = new Promise<void>((resolve, reject) => {
      archive.on('end', resolve);
      archive.on('error', reject);
    });
    archive.append(image, { name: 'sample-watermarked-1.png' });
    archive.append(image, { name: 'sample-watermarked-2.png' });
    await archive.finalize();
    await finished;
    return Buffer.concat(chunks);
  }
}
