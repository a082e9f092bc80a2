// What a report certifies about a file: the bytes the processor examined, even when the stored object was replaced
// since (its upload URL stays valid after the upload), with a preview only of those bytes.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ReportContextFile } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Logger } from '@nestjs/common';
import sharp from 'sharp';
import { ReportsSettings } from '../reports.config';
import { FileEvidenceReader } from './file-evidence.reader';

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
