import { StoredObjectRef } from '@cp/contracts';
import { ObjectStorage, writeZipPackage } from '@cp/storage';
import { Injectable, OnModuleInit } from '@nestjs/common';
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
      const image = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#3b6ea5' } }).png().toBuffer();
      await this.storage.put(bucket, SAMPLE_IMAGE_KEY, image, 'image/png');
    }
    if (!(await this.storage.stat(bucket, SAMPLE_ARCHIVE_KEY))) {
      const entry = (name: string) => ({ bucket, key: SAMPLE_IMAGE_KEY, fileName: name });
      await writeZipPackage(this.storage, [entry('sample-watermarked-1.png'), entry('sample-watermarked-2.png')], { bucket, key: SAMPLE_ARCHIVE_KEY });
    }
  }

  /** The sample image for one result, the sample ZIP for several. */
  forOrder(outputCount: number): StoredObjectRef {
    const bucket = this.storage.buckets.outputs;
    return outputCount > 1
      ? { bucket, key: SAMPLE_ARCHIVE_KEY, fileName: 'sample-watermarked.zip' }
      : { bucket, key: SAMPLE_IMAGE_KEY, fileName: 'sample-watermarked.png' };
  }
}
