import { readFileSync } from 'node:fs';
import { embedImage, extractImage } from '@cp/watermark';
import { lastRegistration } from '../libs/watermark/src/extract';
import { rotateExpand, rng } from './bench-watermark/attacks';
import { derivedPhotos } from './bench-watermark/derived-photos';
const P = '/work/shared/corpus/photos/';
const KEY = { secret: 'bench-secret', version: 'v3' as const };
async function main() {
  const derived = await derivedPhotos(P);
  for (const photo of process.argv.slice(2)) {
    const orig = derived.get(photo) ?? readFileSync(P + photo);
    const id = 0x1234567890abcdefn;
    const e = await embedImage(orig, id, { key: KEY });
    for (let s = 0; s < 5; s++) {
      const r = rng(2000 + s);
      const ang = r() * 360;
      const att = await rotateExpand(e.data, ang, r);
      const res = await extractImage(att, orig, { key: KEY });
      const reg = lastRegistration();
      console.log(photo, `ang ${ang.toFixed(1)}`, res.status, res.payload === id, res.confidence.toFixed(2), 'ncc', reg?.ncc.toFixed(3), res.evidence?.transform ? JSON.stringify(res.evidence.transform) : '');
    }
  }
}
void main();
