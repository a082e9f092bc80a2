import { withPngChunk } from '@cp/testing';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { PNG_METADATA_MAX_BYTES, withinPngMetadataBudget } from './png-metadata-budget';

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
/** zTXt: keyword, NUL, method 0, zlib data. */
const zTXt = (keyword: string, text: Buffer): Buffer => Buffer.concat([latin1(`${keyword}\0\0`), deflateSync(text)]);
/** iTXt with the compression flag set: keyword, NUL, flag 1, method 0, language, NUL, translated keyword, NUL, zlib data. */
const iTXt = (keyword: string, text: Buffer): Buffer => Buffer.concat([latin1(`${keyword}\0\x01\0en\0\0`), deflateSync(text)]);
/** Inflates to `bytes` bytes from about a thousandth of that. */
const bomb = (bytes: number): Buffer => Buffer.alloc(bytes, 0x41);

const png = (): Promise<Buffer> => sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer();
const chunkTypes = (bytes: Buffer): string[] => {
  const types: string[] = [];
  for (let at = 8; at + 12 <= bytes.length; at += 12 + bytes.readUInt32BE(at)) types.push(bytes.toString('latin1', at + 4, at + 8));
  return types;
};

// Attack review: ExifTool inflates a PNG's compressed chunks whole, with no limit, reading or rewriting it: a 400 KB
// file whose zTXt inflates to 400 MB took a read to 1.7 GB and past its 20-second timeout, a 1 MB one a rewrite to 2.1 GB.
describe('compressed PNG metadata within an inflation budget', () => {
  it('hands ExifTool every compressed chunk that inflates within the budget, the file unchanged', async () => {
    let file = withPngChunk(await png(), 'zTXt', zTXt('Parameters', latin1('a lighthouse\nSteps: 20')));
    file = withPngChunk(file, 'iTXt', iTXt('Prompt', bomb(1024 * 1024)));
    expect(withinPngMetadataBudget(file)).toEqual({ bytes: file, omitted: [] });
  });

  it('leaves out the chunks past the budget (zTXt, iTXt, iCCP, zxIf), and any that do not inflate, keeping the rest', async () => {
    let file = withPngChunk(await png(), 'zTXt', zTXt('Parameters', latin1('a lighthouse\nSteps: 20')));
    file = withPngChunk(file, 'zTXt', zTXt('Comment', bomb(PNG_METADATA_MAX_BYTES + 1)));
    file = withPngChunk(file, 'iTXt', iTXt('XML:com.adobe.xmp', bomb(64 * 1024 * 1024)));
    file = withPngChunk(file, 'iCCP', Buffer.concat([latin1('icc\0\0'), deflateSync(bomb(64 * 1024 * 1024))]));
    file = withPngChunk(file, 'zxIf', Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), deflateSync(bomb(64 * 1024 * 1024))]));
    file = withPngChunk(file, 'zTXt', Buffer.concat([latin1('Broken\0\0'), deflateSync(latin1('cut short')).subarray(0, 6)]));
    const bounded = withinPngMetadataBudget(file);
    expect(bounded.omitted).toEqual(['zTXt', 'iTXt', 'iCCP', 'zxIf', 'zTXt']);
    expect(chunkTypes(bounded.bytes)).toEqual([...chunkTypes(await png()).slice(0, -1), 'zTXt', 'IEND']);
    expect((await sharp(bounded.bytes).raw().toBuffer()).equals(await sharp(file).raw().toBuffer())).toBe(true);
    // one budget for the whole file: chunks that fit alone do not all fit together
    const halves = withPngChunk(withPngChunk(await png(), 'zTXt', zTXt('A', bomb(PNG_METADATA_MAX_BYTES / 2 + 1))), 'zTXt', zTXt('B', bomb(PNG_METADATA_MAX_BYTES / 2 + 1)));
    expect(withinPngMetadataBudget(halves).omitted).toEqual(['zTXt']);
  });

  // ExifTool keeps a text chunk whole as a tag value (perl strings about 4.5 times its size): 200 MB of tEXt, the
  // largest upload, took a read to about 900 MB.
  it('counts uncompressed text (tEXt, iTXt) in the same budget, leaving out what passes it', async () => {
    const text = (keyword: string, bytes: number): Buffer => Buffer.concat([latin1(`${keyword}\0`), bomb(bytes)]);
    const plainITXt = (keyword: string, bytes: number): Buffer => Buffer.concat([latin1(`${keyword}\0\0\0en\0\0`), bomb(bytes)]);
    let file = withPngChunk(await png(), 'tEXt', text('parameters', 1024));
    file = withPngChunk(file, 'tEXt', text('Comment', PNG_METADATA_MAX_BYTES));
    file = withPngChunk(file, 'iTXt', plainITXt('Description', PNG_METADATA_MAX_BYTES));
    file = withPngChunk(file, 'zTXt', zTXt('Prompt', latin1('a lighthouse')));
    const bounded = withinPngMetadataBudget(file);
    expect(bounded.omitted).toEqual(['tEXt', 'iTXt']);
    expect(chunkTypes(bounded.bytes)).toEqual([...chunkTypes(await png()).slice(0, -1), 'tEXt', 'zTXt', 'IEND']);
    // inflated and plain text share the budget
    const shared = withPngChunk(withPngChunk(await png(), 'zTXt', zTXt('A', bomb(PNG_METADATA_MAX_BYTES / 2 + 1))), 'tEXt', text('B', PNG_METADATA_MAX_BYTES / 2));
    expect(withinPngMetadataBudget(shared).omitted).toEqual(['tEXt']);
  });

  it('leaves other files as they are', () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 2]);
    expect(withinPngMetadataBudget(jpeg)).toEqual({ bytes: jpeg, omitted: [] });
  });

});
