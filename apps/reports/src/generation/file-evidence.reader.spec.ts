// What a report certifies about a file: the bytes the processor examined, even when the stored object was replaced
// since (its upload URL stays valid after the upload), with a preview only of those bytes.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ReportContextFile } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Logger } from '@nestjs/common';
import sharp from 'sharp';
import { ReportsSettings } from '../reports.config';
import { FileEvidenceReader, THUMBNAIL_MAX_HELD_BYTES, thumbnailHeldBytes } from './file-evidence.reader';
import { deflateSync } from 'node:zlib';

/** One stored object per key, read as the reports service reads it (stat, whole buffer, stream). */
class FakeStorage {
  readonly objects = new Map<string, Buffer>();

  stat(_bucket: string, key: string): Promise<{ size: number; etag: string } | null> {
    const bytes = this.objects.get(key);
    return Promise.resolve(bytes ? { size: bytes.length, etag: 'e' } : null);
  }

  getBuffer(_bucket: string, key: string): Promise<Buffer> {
    return Promise.resolve(this.objects.get(key) ?? Buffer.alloc(0));
  }

  get(_bucket: string, key: string): Promise<Readable> {
    return Promise.resolve(Readable.from([this.objects.get(key) ?? Buffer.alloc(0)]));
  }
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const picture = (red: number): Promise<Buffer> => sharp({ create: { width: 40, height: 30, channels: 3, background: { r: red, g: 20, b: 20 } } }).png().toBuffer();

function reader(storage: FakeStorage, thumbnailMaxBytes = 1 << 20): FileEvidenceReader {
  const settings = { thumbnailMaxBytes } as ReportsSettings;
  return new FileEvidenceReader(storage as unknown as ObjectStorage, settings);
}

function file(examined: Buffer | null): ReportContextFile {
  return { role: 'inspected', fileName: 'leak.png', size: 1, bucket: 'in', key: 'k/leak.png', examined: examined ? { sha256: sha256(examined), size: examined.length } : null };
}

describe('FileEvidenceReader', () => {
  it('certifies the examined bytes and shows no preview when the stored object was replaced after the examination', async () => {
    const examined = await picture(200);
    const storage = new FakeStorage();
    storage.objects.set('k/leak.png', await picture(10));
    const evidence = await reader(storage).read(file(examined), 'inspected');
    expect(evidence).toEqual({ role: 'inspected', fileName: 'leak.png', size: examined.length, sha256: sha256(examined), thumbnailPng: null, replaced: true });
  });

  it('previews the stored object when it still holds the examined bytes', async () => {
    const examined = await picture(200);
    const storage = new FakeStorage();
    storage.objects.set('k/leak.png', examined);
    const evidence = await reader(storage).read(file(examined), 'inspected');
    expect([evidence.sha256, evidence.size, evidence.replaced]).toEqual([sha256(examined), examined.length, false]);
    expect(evidence.thumbnailPng?.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('compares a file too large to preview by its streamed hash', async () => {
    const examined = await picture(200);
    const storage = new FakeStorage();
    storage.objects.set('k/leak.png', Buffer.concat([examined, Buffer.alloc(64)]));
    const evidence = await reader(storage, 16).read(file(examined), 'inspected');
    expect([evidence.sha256, evidence.size, evidence.replaced, evidence.thumbnailPng]).toEqual([sha256(examined), examined.length, true, null]);
  });

  it('hashes the stored object for results recorded before the examined bytes were', async () => {
    const stored = await picture(90);
    const storage = new FakeStorage();
    storage.objects.set('k/leak.png', stored);
    const evidence = await reader(storage).read(file(null), 'inspected');
    expect([evidence.sha256, evidence.size, evidence.replaced]).toEqual([sha256(stored), stored.length, false]);
    expect(evidence.thumbnailPng).not.toBeNull();
  });

  it('has no hash once the stored object is gone (the report is then not available)', async () => {
    const evidence = await reader(new FakeStorage()).read(file(await picture(200)), 'inspected');
    expect([evidence.sha256, evidence.thumbnailPng, evidence.replaced]).toEqual([null, null, false]);
  });
});

/** A PNG chunk (length, type, data, CRC-32). */
function pngChunk(type: string, data: Buffer): Buffer {
  let crc = ~0;
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  for (const byte of typed) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const check = Buffer.alloc(4);
  check.writeUInt32BE(~crc >>> 0);
  return Buffer.concat([length, typed, check]);
}

/** A gray PNG declaring `width` × `height` with one row of data: a decompression bomb's header, 141 bytes. */
function declaredPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(Buffer.alloc(width + 1))), pngChunk('IEND', Buffer.alloc(0))]);
}

describe('FileEvidenceReader: previews of stored files that are not what they claim', () => {
  const photo = (): Promise<Buffer> => sharp({ create: { width: 300, height: 200, channels: 3, background: '#336699' } }).jpeg().toBuffer();
  /** The file as stored and examined; its evidence as the report prints it. */
  const evidenceOf = async (bytes: Buffer, name = 'photo.png'): Promise<Awaited<ReturnType<FileEvidenceReader['read']>>> => {
    const storage = new FakeStorage();
    storage.objects.set(`k/${name}`, bytes);
    const stored: ReportContextFile = { role: 'input', fileName: name, size: bytes.length, bucket: 'in', key: `k/${name}`, examined: { sha256: sha256(bytes), size: bytes.length } };
    return reader(storage, 64 << 20).read(stored, 'input');
  };

  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it.each<[string, () => Promise<Buffer>]>([
    ['corrupt (a PNG signature, then noise)', async () => Buffer.concat([(await picture(1)).subarray(0, 8), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) & 255))])],
    ['truncated JPEG', async () => {
      const jpeg = await photo();
      return jpeg.subarray(0, jpeg.length >> 1);
    }],
    ['truncated PNG', async () => {
      const png = await picture(1);
      return png.subarray(0, png.length - 20);
    }],
    ['a decompression bomb: a PNG declaring 65535 × 65535 (4.3 gigapixels) in 141 bytes', () => Promise.resolve(declaredPng(65535, 65535))],
    ['text named .png', () => Promise.resolve(Buffer.from('hello, no image here\n'.repeat(50)))],
    ['a truncated PDF named .png', () => Promise.resolve(Buffer.from('%PDF-1.7\n1 0 obj << >> endobj\n'))],
  ])('%s: no preview, the file still certified by its size and hash', async (_name, bytes) => {
    const stored = await bytes();
    const evidence = await evidenceOf(stored);
    expect(evidence).toMatchObject({ thumbnailPng: null, sha256: sha256(stored), size: stored.length, replaced: false });
  });

  it('a file of another type than its name says is previewed by what it holds (a JPEG named .png)', async () => {
    const evidence = await evidenceOf(await photo(), 'photo.png');
    expect(evidence.thumbnailPng?.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('an image whose decoding would hold past the limit (an interlaced 16-bit PNG, decoded whole) gets no preview', async () => {
    // 5200 × 5000 RGBA, 16 bits: 208 MB decoded from a file of a few hundred KB (a plain PNG of its size would stream)
    const interlaced = await sharp({ create: { width: 5200, height: 5000, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } })
      .toColourspace('rgb16')
      .png({ progressive: true, compressionLevel: 1 })
      .toBuffer();
    expect(thumbnailHeldBytes(await sharp(interlaced).metadata())).toBeGreaterThan(THUMBNAIL_MAX_HELD_BYTES);
    expect((await evidenceOf(interlaced)).thumbnailPng).toBeNull();
  });

  it('counts what a decoder holds from the header: nothing for a baseline JPEG or a plain PNG, coefficients for a progressive JPEG', async () => {
    const source = sharp({ create: { width: 400, height: 300, channels: 3, background: '#808080' } });
    expect(thumbnailHeldBytes(await sharp(await source.clone().jpeg().toBuffer()).metadata())).toBe(0);
    expect(thumbnailHeldBytes(await sharp(await source.clone().png().toBuffer()).metadata())).toBe(0);
    // 4:2:0: the luma plane and two quarter chroma planes, 2 bytes a coefficient
    expect(thumbnailHeldBytes(await sharp(await source.clone().jpeg({ progressive: true }).toBuffer()).metadata())).toBe(400 * 300 * 1.5 * 2);
    expect(thumbnailHeldBytes(await sharp(await source.clone().png({ progressive: true }).toBuffer()).metadata())).toBe(400 * 300 * 3);
  });
});

describe('FileEvidenceReader and personal data', () => {
  afterEach(() => jest.restoreAllMocks());

  it("logs a replaced input or a missing preview by the object's ids, never by the client's file name", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const storage = new FakeStorage();
    const named = (key: string, examined: Buffer): ReportContextFile => ({
      role: 'inspected',
      fileName: 'Jane Doe passport.png',
      size: 1,
      bucket: 'in',
      key,
      examined: { sha256: sha256(examined), size: examined.length },
    });
    const examined = await picture(200);
    storage.objects.set('1/9/inputs/5/Jane Doe passport.png', await picture(10));
    await reader(storage).read(named('1/9/inputs/5/Jane Doe passport.png', examined), 'inspected');
    const broken = Buffer.from('not an image');
    storage.objects.set('1/9/inputs/6/Jane Doe passport.png', broken);
    expect((await reader(storage).read(named('1/9/inputs/6/Jane Doe passport.png', broken), 'inspected')).thumbnailPng).toBeNull();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(JSON.stringify(warn.mock.calls)).toContain('1/9/inputs/5/[name]');
    expect(JSON.stringify(warn.mock.calls)).not.toContain('Jane Doe');
  });
});
