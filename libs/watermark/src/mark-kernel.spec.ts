import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Raster } from './codec';
import { kernelActivity, planMark, prepareMark, rasterActivity } from './embed';
import { MarkKernel } from './mark-kernel';

const f32 = Math.fround;

/** Round half to even, as WebAssembly's nearest. */
function nearest(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 ? 2 * Math.round(x / 2) : r;
}

/** Reference of the kernel's arithmetic in f32, one pixel at a time. */
function referenceRow(pixels: Uint8Array, channels: number, profiles: Float32Array[], f0: number, f1: number): Uint8Array {
  const out = Uint8Array.from(pixels);
  const colours = channels >= 3 ? 3 : 1;
  const g0 = f32(1 - f0);
  const g1 = f32(1 - f1);
  for (let x = 0; x < profiles[0].length; x++) {
    const l0 = f32(f32(profiles[0][x] * g0) + f32(profiles[1][x] * f0));
    const l1 = f32(f32(profiles[2][x] * g1) + f32(profiles[3][x] * f1));
    const d = Math.max(-128, Math.min(127, nearest(f32(l0 + l1))));
    for (let c = 0; c < colours; c++) out[x * channels + c] = Math.max(0, Math.min(255, pixels[x * channels + c] + d));
  }
  return out;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('8-bit mark kernel (WebAssembly)', () => {
  it.each([1, 2, 3, 4])('matches the f32 reference for %i channels, every width class, with saturation', (channels) => {
    const rnd = random(channels);
    const kernel = new MarkKernel();
    for (const width of [1, 15, 16, 17, 33, 100, 257]) {
      kernel.prepare(width, width * channels);
      const pixels = Uint8Array.from({ length: width * channels }, () => Math.floor(rnd() * 256));
      // mostly small marks, some large ones (clamping at 0 and 255, deltas beyond the signed byte range)
      const profiles = [0, 1, 2, 3].map((slot) => {
        const p = kernel.profile(slot, width);
        for (let x = 0; x < width; x++) p[x] = rnd() < 0.1 ? (rnd() - 0.5) * 600 : (rnd() - 0.5) * 12;
        return p;
      });
      // exact halves exercise the rounding mode
      profiles[0][0] = 2.5;
      profiles[1][0] = 2.5;
      profiles[2][0] = 0;
      profiles[3][0] = 0;
      const f0 = f32(rnd());
      const f1 = f32(rnd());
      const expected = referenceRow(pixels, channels, profiles.map((p) => Float32Array.from(p)), f0, f1);
      const area = kernel.pixels(width * channels);
      area.set(pixels);
      kernel.markRow(0, width, channels, [0, 1, 2, 3], f0, f1);
      expect(Buffer.from(area).equals(Buffer.from(expected))).toBe(true);
      if (channels === 2 || channels === 4) {
        for (let x = 0; x < width; x++) expect(area[x * channels + channels - 1]).toBe(pixels[x * channels + channels - 1]);
      }
    }
  });

  it('marks rasters the same whatever the row ranges asked for, whole in the kernel or in chunks', () => {
    const rnd = random(7);
    const width = 1501;
    const height = 703;
    // a gradient with noise (3.2 MB: more than one 2 MB chunk); no global lookups in the loop (slow in Jest's vm)
    const pixels = new Uint8Array(width * height * 3);
    for (let i = 0; i < pixels.length; i++) pixels[i] = ((i % (width * 3)) >> 4) + ((rnd() * 40) | 0);
    const raster = (): Raster => ({ format: 'png', width, height, channels: 3, colorChannels: 3, bilevel: false, data: Uint8Array.from(pixels) });
    const key = { secret: 'chunks', version: 'v3' as const };
    const plan = planMark(width, height, 0x1234n, key);
    const ranges = [[0, 1], [1, 7], [7, 500], [500, 702], [702, 703]];
    const whole = prepareMark(raster(), plan, new MarkKernel());
    whole.rows(0, height);
    const pieces = prepareMark(raster(), plan, new MarkKernel());
    for (const [y0, y1] of ranges) pieces.rows(y0, y1);
    // a kernel that takes no raster whole: chunks of rows, marked in place
    const input = raster();
    const chunked = prepareMark(input, plan, new MarkKernel(), 0);
    for (const [y0, y1] of ranges) chunked.rows(y0, y1);
    expect(chunked.raster.data).toBe(input.data);
    expect(whole.raster.data).not.toBe(input.data);
    const a = Buffer.from(whole.raster.data.buffer, whole.raster.data.byteOffset, whole.raster.data.byteLength);
    expect(a.equals(Buffer.from(pieces.raster.data.buffer, pieces.raster.data.byteOffset, pieces.raster.data.byteLength))).toBe(true);
    expect(a.equals(Buffer.from(input.data.buffer))).toBe(true);
    // the mark is there: most pixels moved, by a few levels
    let changed = 0;
    for (let i = 0; i < pixels.length; i++) if (a[i] !== pixels[i]) changed++;
    expect(changed / pixels.length).toBeGreaterThan(0.5);
  });

  // the kernel's activity pass and rasterActivity must give the same cell statistics, or a raster's mark would
  // depend on its size; every channel count and every sampling step (1, 2 and 4 above 1 and 4 megapixels)
  it.each([
    [1, 301, 203],
    [2, 1201, 901],
    [3, 2101, 2001],
    [4, 517, 389],
  ])('the kernel activity pass of %i-channel %ix%i rasters gives rasterActivity\'s statistics and marks', (channels, width, height) => {
    const rnd = random(channels * 31);
    // texture, a flat dark band, saturated runs, and a band on both thresholds: sampled (even) columns of luma
    // 20 next to 28, |dx| of exactly DARK_FLAT_ACTIVITY below DARK_FLAT_LUMA, and columns of luma exactly 24
    const pixels = new Uint8Array(width * height * channels);
    for (let i = 0; i < pixels.length; i++) {
      const x = Math.floor(i / channels) % width;
      const band = Math.floor((5 * x) / width);
      pixels[i] = band === 0 ? 3 + ((rnd() * 4) | 0) : band === 1 ? ((x & 1) === 0 ? 20 : 28) : band === 2 ? 24 : band === 3 ? 255 : (x & 255) ^ ((rnd() * 90) | 0);
    }
    const raster = (): Raster & { data: Uint8Array } => ({ format: 'png', width, height, channels, colorChannels: channels <= 2 ? 1 : 3, bilevel: false, data: Uint8Array.from(pixels) });
    const plan = planMark(width, height, 0xabcdefn, { secret: 'activity', version: 'v3' as const });
    const [nx, ny] = plan.dims[0];
    const js = rasterActivity(raster(), nx, ny);
    // a kernel that held a larger image first: its sums must start from zero
    const kernel = new MarkKernel();
    kernelActivity(kernel, { ...raster(), width: width + 3, data: new Uint8Array((width + 3) * height * channels).fill(200) }, nx, ny);
    const { stats } = kernelActivity(kernel, raster(), nx, ny);
    expect(stats.activity).toEqual(js.activity);
    expect(stats.luma).toEqual(js.luma);
    expect(stats.darkFlat).toEqual(js.darkFlat);
    expect(js.darkFlat.some((v) => v > 0 && v < 1)).toBe(true);
    // and so the same mark, whole in the kernel or in chunks
    const inKernel = prepareMark(raster(), plan, new MarkKernel());
    inKernel.rows(0, height);
    const inJs = prepareMark(raster(), plan, new MarkKernel(), 0);
    inJs.rows(0, height);
    const a = inKernel.raster.data;
    expect(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(inJs.raster.data.buffer))).toBe(true);
    expect(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(pixels))).toBe(false);
  });

  it('the committed WebAssembly modules are what their AssemblyScript sources compile to', () => {
    const root = join(__dirname, '../../..');
    const out = execFileSync(process.execPath, [join(root, 'tools/wasm/build.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(out).toContain('mark-kernel.wasm.ts is up to date');
    expect(out).toContain('jpeg-entropy.wasm.ts is up to date');
    expect(out).toContain('decode-kernel.wasm.ts is up to date');
  });
});
