/* Dark, flat and low-key photos for the watermark benchmark (issue 16, part 2), made from the shared corpus on
 * every run (nothing is written to the corpus or the repository). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/** Name → image bytes. The names say how each was made from which corpus photo. */
export async function derivedPhotos(photosDir: string): Promise<Map<string, Buffer>> {
  const file = (name: string): Buffer => readFileSync(join(photosDir, name));
  const out = new Map<string, Buffer>();
  // a low-key grade: exposure down 1.5 stops, then a steep gamma (shadows crushed, highlights kept)
  out.set('lowkey-astronaut.png', await sharp(file('astronaut.png')).linear(0.35, 0).gamma(2.2, 1).png().toBuffer());
  // a mostly black frame with a small subject (1/16 of the area)
  out.set(
    'black-frame-coffee.png',
    await sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: 6, g: 6, b: 8 } } })
      .composite([{ input: await sharp(file('coffee.png')).resize(300, 200).toBuffer(), left: 450, top: 300 }])
      .png()
      .toBuffer(),
  );
  // a dark, mostly flat sky: the rocket photo at a quarter of its exposure, as a JPEG
  out.set('night-rocket.jpg', await sharp(file('rocket.jpg')).linear(0.25, 2).jpeg({ quality: 92 }).toBuffer());
  return out;
}
