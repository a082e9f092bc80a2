import sharp from 'sharp';
import { featureRegister } from './feature-register';
import { Plane } from './image';
import { astronautPng } from './testing/fixtures';

async function plane(image: Buffer): Promise<Plane> {
  const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { w: info.width, h: info.height, d: Float32Array.from(data) };
}

describe('featureRegister', () => {
  it('finds a mirror + 217° on an expanded canvas + 70 % scale + crop + JPEG, with the scale and the mirror', async () => {
    const original = await astronautPng();
    const rotated = await sharp(original).flop().rotate(217, { background: '#d04a8c' }).png().toBuffer();
    const meta = await sharp(rotated).metadata();
    const scaled = await sharp(rotated).resize(Math.round((meta.width ?? 0) * 0.7)).png().toBuffer({ resolveWithObject: true });
    const { width, height } = scaled.info;
    const leaked = await sharp(scaled.data)
      .extract({ left: Math.round(width * 0.12), top: Math.round(height * 0.2), width: Math.round(width * 0.75), height: Math.round(height * 0.7) })
      .jpeg({ quality: 70 })
      .toBuffer();
    const registration = await featureRegister(await plane(original), await plane(leaked));
    expect(registration).not.toBeNull();
    const H = registration?.H ?? new Float64Array(9);
    const det = H[0] * H[4] - H[1] * H[3];
    expect(registration?.ncc).toBeGreaterThan(0.9);
    expect(det).toBeLessThan(0); // mirrored
    expect(1 / Math.sqrt(Math.abs(det))).toBeCloseTo(0.7, 1); // inspected pixels per original pixel
  }, 60_000);

  it('finds nothing between two unrelated pictures', async () => {
    const original = await astronautPng();
    const other = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#345' } })
      .composite([{ input: Buffer.from('<svg width="400" height="300"><circle cx="200" cy="150" r="90" fill="#e9c46a"/><rect x="30" y="40" width="80" height="200" fill="#2a9d8f"/></svg>') }])
      .png()
      .toBuffer();
    const registration = await featureRegister(await plane(original), await plane(other));
    expect(registration === null || registration.ncc < 0.6).toBe(true);
  }, 60_000);
});
