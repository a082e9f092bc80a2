import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { embedImage, extractImage } from '@cp/watermark';
import { lastRegistration, lastRegisteredDiag } from '../libs/watermark/src/extract';
import { mirror, rotateExpand, rng } from './bench-watermark/attacks';
import { derivedPhotos } from './bench-watermark/derived-photos';
const P = '/work/shared/corpus/photos/';
const KEY = { secret: 'bench-secret', version: 'v3' as const };
async function main() {
  const derived = await derivedPhotos(P);
  const names = process.argv.slice(2);
  for (const photo of names) {
    const orig = derived.get(photo) ?? readFileSync(P + photo);
    const meta = await sharp(orig).metadata();
    const id = 0x1234567890abcdefn;
    const e = await embedImage(orig, id, { key: KEY });
    for (let s = 0; s < 6; s++) {
      const r = rng(1000 + s);
      const v = r() < 0.5; const ang = r() * 360;
      const m = await mirror(e.data, v);
      const rot = await rotateExpand(m, ang, r);
      const scale = 0.5 + 0.4 * r();
      const rm = await sharp(rot).metadata();
      const sc = await sharp(rot).resize(Math.round(rm.width! * scale)).png().toBuffer();
      const area = 0.6 + 0.3 * r();
      const sm = await sharp(sc).metadata();
      const cw = Math.round(sm.width! * Math.sqrt(area)), ch = Math.round(sm.height! * Math.sqrt(area));
      const left = Math.floor(r() * (sm.width! - cw)), top = Math.floor(r() * (sm.height! - ch));
      const q = Math.round(60 + 30 * r());
      const att = await sharp(sc).extract({ left, top, width: cw, height: ch }).jpeg({ quality: q }).toBuffer();
      const t = Date.now();
      const res = await extractImage(att, orig, { key: KEY });
      const reg = lastRegistration(); const diag = lastRegisteredDiag();
      console.log(photo, meta.width, 'x', meta.height, `mirror${v ? 'V' : 'H'} ang ${ang.toFixed(1)} scale ${scale.toFixed(2)} area ${area.toFixed(2)} q${q}`, '->', res.status, res.payload === id, Date.now() - t, 'ms', 'ncc', reg?.ncc.toFixed(3), 'H', reg ? Array.from(reg.H as ArrayLike<number>).slice(0, 6).map((x) => x.toFixed(3)).join(',') : '-', res.evidence?.transform ? JSON.stringify(res.evidence.transform) : '', diag ? JSON.stringify(diag).slice(0, 200) : '');
    }
  }
}
void main();
