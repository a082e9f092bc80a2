import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { embedImage, extractImage } from '@cp/watermark';
const P = '/work/shared/corpus/photos/';
const KEY = { secret: 'bench-secret', version: 'v3' as const };
async function luma(img: Buffer) {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const d = new Float64Array(info.width * info.height); const c = info.channels;
  for (let i = 0; i < d.length; i++) d[i] = c === 1 ? data[i] : 0.299 * data[i * c] + 0.587 * data[i * c + 1] + 0.114 * data[i * c + 2];
  return { d, w: info.width, h: info.height };
}
function ssim(a: Float64Array, b: Float64Array, w: number, h: number): number {
  const c1 = (0.01 * 255) ** 2, c2 = (0.03 * 255) ** 2; let sum = 0, n = 0;
  for (let y = 0; y + 8 <= h; y += 4) for (let x = 0; x + 8 <= w; x += 4) {
    let ma = 0, mb = 0, va = 0, vb = 0, cov = 0;
    for (let j = 0; j < 8; j++) for (let i = 0; i < 8; i++) { const k = (y + j) * w + x + i; ma += a[k]; mb += b[k]; }
    ma /= 64; mb /= 64;
    for (let j = 0; j < 8; j++) for (let i = 0; i < 8; i++) { const k = (y + j) * w + x + i; va += (a[k] - ma) ** 2; vb += (b[k] - mb) ** 2; cov += (a[k] - ma) * (b[k] - mb); }
    va /= 63; vb /= 63; cov /= 63;
    sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2)); n++;
  }
  return sum / n;
}
export async function derived(): Promise<Record<string, Buffer>> {
  const lowKey = await sharp(readFileSync(P + 'astronaut.png')).linear(0.35, 0).gamma(2.2, 1).png().toBuffer();
  const smallSubject = await sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: 6, g: 6, b: 8 } } })
    .composite([{ input: await sharp(readFileSync(P + 'coffee.png')).resize(300, 200).toBuffer(), left: 450, top: 300 }]).png().toBuffer();
  const nightSky = await sharp(readFileSync(P + 'rocket.jpg')).linear(0.25, 2).jpeg({ quality: 92 }).toBuffer();
  return { lowKey, smallSubject, nightSky };
}
async function main() {
  const imgs = await derived();
  for (const [name, img] of Object.entries(imgs)) {
    const e = await embedImage(img, 0x1234567890abcdefn, { key: KEY });
    const a = await luma(img), b = await luma(e.data);
    const x = await extractImage(await sharp(e.data).jpeg({ quality: 50 }).toBuffer(), img, { key: KEY });
    console.log(name, ssim(a.d, b.d, a.w, a.h).toFixed(4), x.status, x.payload === 0x1234567890abcdefn);
  }
}
if (require.main === module && process.argv[2] !== "all") void main();
export async function corpusAll() {
  const { readdirSync } = await import('node:fs');
  const out: Record<string, Buffer> = {};
  for (const f of readdirSync(P).filter((f) => /\.(png|jpe?g)$/.test(f))) out[f] = readFileSync(P + f);
  return out;
}
if (process.argv[2] === 'all') void (async () => {
  const imgs = { ...(await corpusAll()), ...(await derived()) };
  for (const [name, img] of Object.entries(imgs)) {
    const e = await embedImage(img, 0x1234567890abcdefn, { key: KEY });
    const a = await luma(img), b = await luma(e.data);
    let mse = 0; for (let i = 0; i < a.d.length; i++) mse += (a.d[i] - b.d[i]) ** 2; mse /= a.d.length;
    console.log(name.padEnd(22), 'ssim', ssim(a.d, b.d, a.w, a.h).toFixed(4), 'lumaMSE', mse.toFixed(2));
  }
})();
