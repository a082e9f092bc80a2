import { deeplyNestedXmp, pauseExiftoolStartedBy, withPngChunk, withPngXmp } from '@cp/testing';
import { ExiftoolMachineFailure, PNG_METADATA_MAX_BYTES } from '@cp/watermark';
import { ExifTool } from 'exiftool-vendored';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { withPngTextChunk } from '../../testing';
import { UNSIGNED_CLAIM } from '../weights';
import { METADATA_VALUE_MAX_CHARS, metadataEvidence, MetadataReader } from './metadata.signal';

describe('declared metadata signal', () => {
  it('weighs each declaration from the tags', () => {
    const ai = metadataEvidence({ DigitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' });
    expect(ai).toHaveLength(1);
    expect(ai[0]).toMatchObject({ finding: 'metadata.sourceType.ai', direction: 'ai' });
    const capture = metadataEvidence({ DigitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' });
    expect(capture[0].direction).toBe('real');
    // Unsigned claims weigh the same small amount either way (weights.ts).
    expect(capture[0].weight).toBe(-ai[0].weight);
    expect(ai[0].weight).toBe(UNSIGNED_CLAIM);
    const comfy = metadataEvidence({ Prompt: '{"3": {"class_type": "KSampler"}}', Workflow: '{}' });
    expect(comfy[0]).toMatchObject({ finding: 'metadata.generatorParameters', direction: 'ai' });
    expect(metadataEvidence({ Software: 'Midjourney v6' })[0].finding).toBe('metadata.generatorSoftware');
    expect(metadataEvidence({ Software: 'Adobe Lightroom Classic 13.0', Make: 'Canon' })).toEqual([]);
  });

  // The software tag is matched by a name inside it: "Imagenomic Portraiture" contains "imagen" and was described as
  // "Software names an image generator", a claim the match does not back. The finding says what matched.
  it('says which generator name a software tag contains, not that the software is a generator', () => {
    const [finding] = metadataEvidence({ Software: 'Imagenomic Portraiture 3' });
    expect(finding).toMatchObject({ finding: 'metadata.generatorSoftware', weight: UNSIGNED_CLAIM, details: { matched: 'imagen' } });
    expect(finding.description).toBe('Software contains "imagen", the name of an image generator ("Imagenomic Portraiture 3"); a name inside another product\'s name matches too.');
  });

  it('reads Stable Diffusion web UI parameters and an IPTC source type from a real PNG', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'metadata-spec-'));
    const writer = new ExifTool({ maxProcs: 1 });
    const reader = new MetadataReader();
    try {
      const file = join(dir, 'generated.png');
      await writeFile(file, await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer());
      await writer.write(file, {
        'PNG:Parameters': 'a lighthouse at dusk\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1',
        'XMP-iptcExt:DigitalSourceType': 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
      } as never, { writeArgs: ['-overwrite_original'] });
      const { evidence } = await reader.read(await readFile(file));
      expect(evidence.map((e) => e.finding).sort()).toEqual(['metadata.generatorParameters', 'metadata.sourceType.ai']);
      const comfy = withPngTextChunk(await readFile(file), 'workflow', '{"nodes":[{"type":"KSampler"}]}');
      expect((await reader.read(comfy)).evidence.find((e) => e.finding === 'metadata.generatorParameters')?.details).toHaveProperty('Workflow');
      const stripped = await sharp(await readFile(file)).png().toBuffer();
      expect((await reader.read(stripped)).evidence).toEqual([]);
    } finally {
      await writer.end();
      await reader.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Attack review: ExifTool inflated compressed PNG chunks without a limit (a 400 KB file: 1.7 GB, past its timeout).
  it('the metadata signal reads what fits, and says what it left out without counting it', async () => {
    let file = withPngChunk(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer(), 'zTXt', Buffer.concat([Buffer.from('Parameters\0\0', 'latin1'), deflateSync(Buffer.from('a lighthouse at dusk\nSteps: 20, Sampler: Euler a', 'latin1'))]));
    file = withPngChunk(file, 'zTXt', Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), deflateSync(Buffer.alloc(PNG_METADATA_MAX_BYTES * 8, 0x41))]));
    const reader = new MetadataReader();
    try {
      const { evidence } = await reader.read(file);
      expect(evidence.map((e) => e.finding)).toEqual(['metadata.generatorParameters', 'metadata.unreadable']);
      expect(evidence[1]).toMatchObject({ direction: 'neutral', weight: 0, details: { omittedChunks: 1, chunkTypes: 'zTXt' } });
    } finally {
      await reader.close();
    }
  });

  // Attack review: what metadata makes ExifTool hold is not bounded by its bytes, in any container: 8 MB of XMP whose
  // properties all have different names took the detector's ExifTool to 3.9 GB and past its timeout, twice.
  it('reads no metadata from a file that takes ExifTool past its memory limit, says so, and reads the next file', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer();
    const properties = Array.from({ length: 40_000 }, (_, i) => `<e:p${i}>v</e:p${i}>`).join('');
    const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:e="http://example.com/e/">${properties}</rdf:Description></rdf:RDF></x:xmpmeta>`;
    const hostile = withPngChunk(withPngTextChunk(png, 'parameters', 'a lighthouse, Steps: 20'), 'iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${xmp}`, 'latin1'));
    const reader = new MetadataReader({ maxMemoryMb: 128 });
    try {
      const { evidence } = await reader.read(hostile);
      expect(evidence).toEqual([expect.objectContaining({ finding: 'metadata.unreadable', direction: 'neutral', weight: 0, details: { limits: '128 MiB, 10 s of CPU' } })]);
      expect((await reader.read(withPngTextChunk(png, 'parameters', 'a lighthouse, Steps: 20'))).evidence.map((e) => e.finding)).toEqual(['metadata.generatorParameters']);
    } finally {
      await reader.close();
    }
  });

  // Review: a file that keeps ExifTool busy without memory cost the whole 20 s deadline; now its CPU budget.
  it('reads no metadata from a file that keeps ExifTool busy past its CPU budget, says so, and reads the next file', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer();
    const reader = new MetadataReader({ cpuBudgetMillis: 1000, taskTimeoutMillis: 120_000 });
    try {
      const { evidence } = await reader.read(withPngXmp(withPngTextChunk(png, 'parameters', 'a lighthouse, Steps: 20'), deeplyNestedXmp(2500)));
      expect(evidence).toEqual([expect.objectContaining({ finding: 'metadata.unreadable', weight: 0, details: { limits: '512 MiB, 1 s of CPU' } })]);
      expect((await reader.read(withPngTextChunk(png, 'parameters', 'a lighthouse, Steps: 20'))).evidence.map((e) => e.finding)).toEqual(['metadata.generatorParameters']);
    } finally {
      await reader.close();
    }
  }, 120_000);

  // Review: an ordinary file that timed out on an overloaded machine lost its metadata signal for good.
  it('fails the read (the job is retried) when ExifTool waited for the machine until its deadline, not the file', async () => {
    const png = withPngTextChunk(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer(), 'parameters', 'a lighthouse, Steps: 20');
    // 6 s, not 2: the first task of a new ExifTool (perl loading its modules) took 1.05-1.1 s of its timeout with the test's
    // core shared with three busy processes, and went past 2 s with two jest workers on it too; the paused task waits
    // it out whatever its length.
    const reader = new MetadataReader({ taskTimeoutMillis: 6000 });
    try {
      await pauseExiftoolStartedBy(async () => expect((await reader.read(png)).evidence.map((e) => e.finding)).toEqual(['metadata.generatorParameters']));
      const read = reader.read(png);
      await expect(read).rejects.toBeInstanceOf(ExiftoolMachineFailure);
      expect((await reader.read(png)).evidence.map((e) => e.finding)).toEqual(['metadata.generatorParameters']);
    } finally {
      await reader.close();
    }
  }, 60_000);

  // Attack review: ExifTool's JSON answer was as long as the file's longest values, gathered by exiftool-vendored in the
  // detector's own thread (a TIFF whose ImageDescription held 64 MB: 40 s of its CPU, pauses of up to 3 s, timed out).
  it('hands back each value cut to a few thousand characters', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer();
    const long = `a lighthouse at dusk, ${'very '.repeat(200_000)}detailed\nSteps: 20`;
    const reader = new MetadataReader();
    try {
      const read = await reader.tags(withPngTextChunk(withPngTextChunk(png, 'parameters', long), 'Comment', 'x'.repeat(10_000)));
      expect(read?.tags['Parameters']).toBe(long.slice(0, METADATA_VALUE_MAX_CHARS));
      expect(read?.tags['Comment']).toBe('x'.repeat(METADATA_VALUE_MAX_CHARS));
      expect((await reader.read(withPngTextChunk(png, 'parameters', long))).evidence.map((e) => e.finding)).toEqual(['metadata.generatorParameters']);
    } finally {
      await reader.close();
    }
  });
});
