/* Dev probe: quick robustness check on selected photos/attacks. Usage: probe.ts [payloads] [attackRegex] [photoRegex] */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embedImage, extractImage, WatermarkKey } from '@cp/watermark';
import { ATTACKS, BLIND_ATTACKS, GEOMETRY_ATTACKS, rng } from './attacks';
import { derivedPhotos } from './derived-photos';

const PHOTOS = join(__dirname, '../../../shared/corpus/photos');
if (!existsSync(PHOTOS)) {
  process.stderr.write(`No corpus at ${PHOTOS}: put the shared benchmark corpus (see its README) beside the repository as ../shared/corpus.\n`);
  process.exit(2);
}

const KEY: WatermarkKey = { secret: 'bench-secret', version: 'v3' };
async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 2);
  const aRe = new RegExp(process.argv[3] ?? '.');
  const pRe = new RegExp(process.argv[4] ?? '.');
  const derived = await derivedPhotos(PHOTOS);
  const photos = [...readdirSync(PHOTOS).filter((f) => /\.(png|jpe?g)$/.test(f) && !f.startsWith('kite')).sort(), ...derived.keys()].filter((f) => pRe.test(f));
  const all = [...[...ATTACKS, ...GEOMETRY_ATTACKS].map(([a, f]) => [a, f, true] as const), ...BLIND_ATTACKS.map(([a, f]) => [a, f, false] as const)].filter(([a]) => aRe.test(a));
  const stats = new Map<string, { ok: number; t: number; fails: string[]; conf: number[] }>();
  const t0 = performance.now();
  for (const photo of photos) {
    const orig = derived.get(photo) ?? readFileSync(join(PHOTOS, photo));
    const r = rng(photo.length * 31 + 7);
    for (let k = 0; k < n; k++) {
      const id = (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32));
      const e = await embedImage(orig, id, { key: KEY });
      let seed = k * 1000 + photo.length;
      for (const [name, attack, withOrig] of all) {
        const img = await attack(e.data, rng(seed++));
        const t = performance.now();
        const res = await extractImage(img, withOrig ? orig : null, { key: KEY });
        const s = stats.get(name) ?? { ok: 0, t: 0, fails: [], conf: [] };
        s.t += performance.now() - t;
        const ok = res.status === 'detected' && res.payload === id;
        if (res.status === 'detected' && res.payload !== id) throw new Error('WRONG PAYLOAD');
        if (ok) s.ok++;
        else s.fails.push(`${photo.replace(/\..*/, '')}(${res.status[0]}${res.confidence.toFixed(2)})`);
        s.conf.push(res.confidence);
        stats.set(name, s);
      }
    }
  }
  let tot = 0;
  let okAll = 0;
  for (const [name, s] of stats) {
    const total = photos.length * n;
    tot += total;
    okAll += s.ok;
    const minc = Math.min(...s.conf);
    process.stdout.write(`${name.padEnd(30)} ${s.ok}/${total} ${(s.t / total).toFixed(0)}ms minconf ${minc.toFixed(2)} ${s.fails.join(' ')}\n`);
  }
  process.stdout.write(`TOTAL ${okAll}/${tot} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
main().catch((e: unknown) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + '\n');
  process.exit(1);
});
