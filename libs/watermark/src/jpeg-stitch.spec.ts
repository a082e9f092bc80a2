import sharp from 'sharp';
import { JpegStripJoiner, optimalTable, withJpegEntropy } from './jpeg-stitch';
import { fixture } from './testing/fixtures';

const PHOTOS: Record<string, string> = { astronaut: 'photos/astronaut.jpg', text: 'photos/text.png', cmyk: 'formats/jpg-cmyk.jpg', webp: 'formats/webp-lossless.webp' };

interface Case {
  photo: string;
  gray: boolean;
  quality: number;
  chromaSubsampling: '4:2:0' | '4:4:4';
  scale: number;
}

async function rawOf(c: Case): Promise<{ raw: Buffer; width: number; height: number; channels: 1 | 3 }> {
  const meta = await sharp(fixture(PHOTOS[c.photo])).metadata();
  const width = Math.round((meta.width ?? 0) * c.scale);
  const height = Math.round((meta.height ?? 0) * c.scale);
  let pipe = sharp(fixture(PHOTOS[c.photo])).resize(width, height).removeAlpha();
  pipe = c.gray ? pipe.toColourspace('b-w') : pipe.toColourspace('srgb');
  const raw = await pipe.raw().toBuffer();
  return { raw, width, height, channels: c.gray ? 1 : 3 };
}

function encoder(raw: Buffer, width: number, channels: 1 | 3, c: Case) {
  return (y0: number, y1: number, options: { optimiseCoding?: boolean; progressive?: boolean; quality?: number } = {}): Promise<Buffer> =>
    sharp(raw.subarray(y0 * width * channels, y1 * width * channels), { raw: { width, height: y1 - y0, channels } })
      .toColourspace(c.gray ? 'b-w' : 'srgb')
      .jpeg({ quality: c.quality, chromaSubsampling: c.chromaSubsampling, optimiseCoding: false, ...options })
      .toBuffer();
}

function stripRows(height: number, mcu: number, count: number): [number, number][] {
  const rows = Math.ceil(Math.ceil(height / count) / mcu) * mcu;
  const out: [number, number][] = [];
  for (let y = 0; y < height; y += rows) out.push([y, Math.min(height, y + rows)]);
  return out;
}

const hasMarker = (jpeg: Buffer, marker: number): boolean => jpeg.includes(Buffer.from([0xff, marker]));

describe('JPEG strip joiner', () => {
  const cases: Case[] = [
    { photo: 'astronaut', gray: false, quality: 90, chromaSubsampling: '4:2:0', scale: 1 },
    { photo: 'webp', gray: false, quality: 75, chromaSubsampling: '4:4:4', scale: 1.77 },
    { photo: 'astronaut', gray: true, quality: 50, chromaSubsampling: '4:2:0', scale: 0.63 },
    { photo: 'text', gray: false, quality: 100, chromaSubsampling: '4:2:0', scale: 1.51 },
    { photo: 'cmyk', gray: false, quality: 20, chromaSubsampling: '4:2:0', scale: 2.93 },
  ];

  it.each(cases)('$photo gray=$gray q$quality $chromaSubsampling x$scale: same pixels and size as one optimised encode', async (c) => {
    const { raw, width, height, channels } = await rawOf(c);
    const encode = encoder(raw, width, channels, c);
    const mcu = c.gray || c.chromaSubsampling === '4:4:4' ? 8 : 16;
    const strips = stripRows(height, mcu, 5);
    // strips arrive out of order, as parallel encodes do
    const encoded = await Promise.all(strips.map(([y0, y1]) => encode(y0, y1)));
    const joined = await withJpegEntropy(async (entropy) => {
      const joiner = new JpegStripJoiner(entropy, strips.length);
      for (const i of [...strips.keys()].reverse()) joiner.add(i, encoded[i]);
      return joiner.finish();
    });
    expect(joined).not.toBeNull();
    const single = await encode(0, height, { optimiseCoding: true });
    const [a, b] = await Promise.all([sharp(joined as Buffer).raw().toBuffer({ resolveWithObject: true }), sharp(single).raw().toBuffer({ resolveWithObject: true })]);
    const meta = await sharp(joined as Buffer).metadata();
    expect([meta.width, meta.height, meta.channels]).toEqual([width, height, channels]);
    expect([a.info.width, a.info.height]).toEqual([width, height]);
    expect(a.data.equals(b.data)).toBe(true);
    expect(Math.abs((joined as Buffer).length / single.length - 1)).toBeLessThan(0.01);
    // one restart interval per strip, and smaller than the strips with standard tables
    expect(hasMarker(joined as Buffer, 0xdd)).toBe(true);
    expect(hasMarker(joined as Buffer, 0xd0 + ((strips.length - 2) & 7))).toBe(true);
    expect((joined as Buffer).length).toBeLessThan(encoded.reduce((n, e) => n + e.length, 0));
  });

  it('gives up on strips it cannot join: progressive, other tables, truncated data, uneven strips', async () => {
    const c = cases[0];
    const { raw, width, channels } = await rawOf(c);
    const encode = encoder(raw, width, channels, c);
    const join = (parts: Buffer[]): Promise<Buffer | null> =>
      withJpegEntropy(async (entropy) => {
        const joiner = new JpegStripJoiner(entropy, parts.length);
        parts.forEach((p, i) => joiner.add(i, p));
        return joiner.finish();
      });
    const top = await encode(0, 64);
    const bottom = await encode(64, 128);
    expect(await join([top, bottom])).not.toBeNull();
    expect(await join([top, await encode(64, 128, { progressive: true })])).toBeNull();
    expect(await join([top, await encode(64, 128, { quality: 60 })])).toBeNull();
    expect(await join([top, bottom.subarray(0, bottom.length >> 1)])).toBeNull();
    expect(await join([await encode(0, 40), await encode(40, 128)])).toBeNull();
    expect(await join([top, Buffer.from('not a jpeg')])).toBeNull();
  });
});

describe('optimal Huffman table', () => {
  const codeLengths = (t: { bits: Uint8Array; values: Uint8Array }): Map<number, number> => {
    const out = new Map<number, number>();
    let k = 0;
    t.bits.forEach((n, i) => {
      for (let j = 0; j < n; j++) out.set(t.values[k++], i + 1);
    });
    return out;
  };

  it('codes every used symbol within 16 bits, leaves the all-ones code free and favours frequent symbols', () => {
    // Fibonacci frequencies would need codes of up to 30 bits without the length limit
    const freq = new Uint32Array(256);
    let a = 1;
    let b = 1;
    for (let s = 0; s < 30; s++) {
      freq[s * 7] = a;
      [a, b] = [b, a + b];
    }
    const table = optimalTable(freq);
    const lengths = codeLengths(table);
    expect([...lengths.keys()].sort((x, y) => x - y)).toEqual([...Array(30).keys()].map((s) => s * 7));
    expect(Math.max(...lengths.values())).toBeLessThanOrEqual(16);
    const kraft = [...lengths.values()].reduce((sum, len) => sum + 2 ** -len, 0);
    expect(kraft).toBeLessThan(1);
    expect(lengths.get(29 * 7)).toBeLessThanOrEqual(lengths.get(0) ?? 0);
  });

  it('a single symbol still gets a code', () => {
    const freq = new Uint32Array(256);
    freq[0] = 1000;
    const lengths = codeLengths(optimalTable(freq));
    expect([...lengths.entries()]).toEqual([[0, 1]]);
  });
});
