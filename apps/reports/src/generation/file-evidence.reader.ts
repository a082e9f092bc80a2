import { ExaminedBytes, loggedObjectKey, ReportContextFile, StoredObjectRef } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { configurePdfResources, renderPdfPages } from '@cp/watermark-pdf';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import sharp, { Metadata } from 'sharp';
import { FileEvidence } from '../rendering/report-document';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';

export const THUMBNAIL_BOX = { width: 450, height: 300 };
const THUMBNAIL_MAX_PIXELS = 100_000_000;
/**
 * What a preview's decoder may hold at once, in bytes. A baseline JPEG or a plain PNG is decoded a few rows at a time
 * (a 100-megapixel PNG previewed with 16 MB), but an interlaced PNG is decoded whole and a progressive JPEG keeps all
 * its coefficients: a 300 KB interlaced 16-bit PNG of 25 megapixels took 212 MB of the service's memory, one at the
 * pixel limit would take 800 MB (the pod's limit is 1.5 GiB, its children's included). Such a file gets no preview.
 */
export const THUMBNAIL_MAX_HELD_BYTES = 192 * 1024 * 1024;

/**
 * The bytes a preview of this image holds at once, from its header: none beyond a few rows for a baseline JPEG or a
 * plain PNG; a progressive JPEG's 16-bit coefficients (chroma at its subsampling); any other image decoded whole.
 */
export function thumbnailHeldBytes(meta: Metadata): number {
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  const progressive = meta.isProgressive === true;
  if ((meta.format === 'jpeg' || meta.format === 'png') && !progressive) return 0;
  if (meta.format === 'jpeg') {
    const planes = meta.chromaSubsampling?.startsWith('4:2:0') ? 1.5 : meta.chromaSubsampling?.startsWith('4:2:2') ? 2 : (meta.channels ?? 3);
    return pixels * planes * 2;
  }
  const sampleBytes = meta.depth === 'ushort' || meta.depth === 'short' ? 2 : meta.depth === 'float' || meta.depth === 'uint' || meta.depth === 'int' ? 4 : meta.depth === 'double' ? 8 : 1;
  return pixels * (meta.channels ?? 4) * sampleBytes;
}
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

  /**
   * A preview is a courtesy: a format sharp cannot read (BMP), a broken or truncated file, one that is no image
   * whatever its name says, one past the pixel limit or whose decoding would hold more than THUMBNAIL_MAX_HELD_BYTES
   * just has none (the report prints "No preview available" in its place). Decoded by sharp's threads: the service's
   * event loop only waits.
   */
  private async thumbnail(bytes: Buffer, key: string): Promise<Buffer | null> {
    try {
      if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
        const [page] = await renderPdfPages(bytes, [0], 40, 4_000_000);
        return await sharp(page.rgb, { raw: { width: page.width, height: page.height, channels: 3 } })
          .resize({ ...THUMBNAIL_BOX, fit: 'inside' })
          .png()
          .toBuffer();
      }
      // the header only: the pixel limit and what decoding would hold are known before any pixel is decoded
      const meta = await sharp(bytes, { limitInputPixels: THUMBNAIL_MAX_PIXELS, page: 0 }).metadata();
      const held = thumbnailHeldBytes(meta);
      if (held > THUMBNAIL_MAX_HELD_BYTES) {
        this.logger.warn({ key: loggedObjectKey(key), width: meta.width, height: meta.height, format: meta.format, held }, 'no thumbnail: decoding this file would hold too much memory');
        return null;
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
