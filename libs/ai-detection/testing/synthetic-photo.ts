import { RgbImage } from '../src/sd-watermark/sd-watermark';

/** A deterministic photo-like RGB image (smooth gradients plus seeded texture), so tests need no corpus file. */
export function syntheticPhoto(width: number, height: number, seed = 1): RgbImage {
  const data = new Uint8Array(width * height * 3);
  let state = seed >>> 0 || 1;
  const random = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0xffffffff;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      // Smooth colour waves (natural images vary smoothly inside 8×8 areas) plus a little sensor-like noise.
      const wave = Math.sin((2 * Math.PI * x) / 37 + y / 23) * Math.cos((2 * Math.PI * y) / 29);
      const base = 100 + 40 * (x / width);
      data[i] = Math.round(base + 30 * wave + 6 * random());
      data[i + 1] = Math.round(base * 0.9 + 10 * wave + 6 * random());
      data[i + 2] = Math.round(base * 0.8 - 50 * wave + 6 * random() + 30);
    }
  }
  return { data, width, height };
}
