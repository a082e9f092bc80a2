import { ExaminedBytes, loggedObjectKey, ReportContextFile, StoredObjectRef } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { configurePdfResources, renderPdfPages } from '@cp/watermark-pdf';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { FileEvidence } from '../rendering/report-document';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';

const THUMBNAIL_BOX = { width: 450, height: 300 };
const THUMBNAIL_MAX_PIXELS = 100_000_000;
/**
 * Heap of the pdf.js process that draws a report's preview: one first page at low resolution needs far less than
 * the processor's full renders, and the service's own memory limit (768 MiB in the chart) must hold both.
 */
const PREVIEW_RENDER_HEAP_MB = 256;
/** The preview process's whole resident memory: a page whose images decode past it gets no preview. */
const PREVIEW_RENDER_RESIDENT_MB = 384;

/** SHA-256 and a preview of one input file, read from storage (test orders keep no file contents). */
@Injectable()
export class FileEvidenceReader {
  private readonly logger = new Logger(FileEvidenceReader.name);

  constructor(
    private readonly storage: ObjectStorage,
    @Inject(REPORTS_SETTINGS) private readonly settings: ReportsSettings,
  ) {
    configurePdfResources({ render: { maxOldGenerationSizeMb: PREVIEW_RENDER_HEAP_MB, maxResidentMb: PREVIEW_RENDER_RESIDENT_MB } });
  }

  /**
   * The file as examined: the processor's record of the bytes it read when there is one (an upload URL stays valid
   * after the upload, so the stored object may since hold other bytes: a report certifying those would certify a
   * file never examined). The stored object is hashed too: it is previewed only when it still holds those bytes.
   */
  async read(file: ReportContextFile, role: FileEvidence['role']): Promise<FileEvidence> {
    const info = await this.storage.stat(file.bucket, file.key);
    if (!info) {
      return { role, fileName: file.fileName, size: file.examined?.size ?? file.size, sha256: null, thumbnailPng: null, replaced: false };
    }
    if (info.size > this.settings.thumbnailMaxBytes) {
      // Too large to hold in memory: hash the stream, no preview.
      const hash = createHash('sha256');
      for await (const chunk of await this.storage.get(file.bucket, file.key)) {
        hash.update(chunk as Buffer);
      }
      return this.certified(file, role, { sha256: hash.digest('hex'), size: info.size }, null);
    }
    const bytes = await this.storage.getBuffer(file.bucket, file.key, this.settings.thumbnailMaxBytes);
    return this.certified(file, role, { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length }, bytes);
  }

  /** What the report prints of a file: the examined bytes' record, else (orders processed before it) the stored ones. */
  private async certified(file: ReportContextFile, role: FileEvidence['role'], stored: ExaminedBytes, bytes: Buffer | null): Promise<FileEvidence> {
    const examined = file.examined ?? stored;
    const replaced = examined.sha256 !== stored.sha256;
    if (replaced) {
      // Ids only: the file name (often a person's name) would stay in the log store past the order's expiry.
      this.logger.warn({ key: loggedObjectKey(file.key) }, 'stored input no longer holds the examined bytes: the report certifies the examined ones, without a preview');
    }
    return {
      role,
      fileName: file.fileName,
      size: examined.size,
      sha256: examined.sha256,
      thumbnailPng: bytes && !replaced ? await this.thumbnail(bytes, file.key) : null,
      replaced,
    };
  }

  /** A stored image (a heatmap) as PNG for the PDF; null when gone or unreadable. */
  async picture(ref: StoredObjectRef): Promise<Buffer | null> {
    const info = await this.storage.stat(ref.bucket, ref.key);
    if (!info || info.size > this.settings.thumbnailMaxBytes) {
      return null;
    }
    return this.thumbnail(await this.storage.getBuffer(ref.bucket, ref.key, this.settings.thumbnailMaxBytes), ref.key);
  }

  /** A preview is a courtesy: a format sharp cannot read (BMP) or a broken file just has none. */
  private async thumbnail(bytes: Buffer, key: string): Promise<Buffer | null> {
    try {
      if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
        const [page] = await renderPdfPages(bytes, [0], 40, 4_000_000);
        return await sharp(page.rgb, { raw: { width: page.width, height: page.height, channels: 3 } })
          .resize({ ...THUMBNAIL_BOX, fit: 'inside' })
          .png()
          .toBuffer();
      }
      return await sharp(bytes, { limitInputPixels: THUMBNAIL_MAX_PIXELS, page: 0 })
        .rotate()
        .resize({ ...THUMBNAIL_BOX, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .png()
        .toBuffer();
    } catch (error) {
      this.logger.warn({ err: error, key: loggedObjectKey(key) }, 'no thumbnail for this file');
      return null;
    }
  }
}
