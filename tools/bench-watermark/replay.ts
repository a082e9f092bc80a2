/* Dev probe: replays rows of the full benchmark with the full run's payloads and attack seeds (same photos, same
 * order), so a failure seen in a full run can be examined alone.
 * Usage: replay.ts <attackRegex> [photoRegex] [payloadIndices, e.g. 0,3]; REPLAY_SAVE=<dir> keeps the attacked images;
 * REPLAY_TRUTH=1 adds how far the registration found is from the attack's true geometry (truth.ts). Each decoded
 * copy's line says, per layer, the coded bits read right and the soft agreement, and how many bits of information the
 * copy carries on the code word (information.ts). */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { embedImage, extractImage, WatermarkKey } from '@cp/watermark';
import { ATTACKS, BLIND_ATTACKS, chainOrder, GEOMETRY_ATTACKS, NEW_ATTACKS, rng } from './attacks';
import { derivedPhotos } from './derived-photos';
import { benchPayload, issuanceList } from './issuance';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { convEncode, infoBits } from '../../libs/watermark/src/payload';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { FALSE_MATCH_BOUND, workingScales } from '../../libs/watermark/src/extract';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { registeredDecode } from '../../libs/watermark/src/registered-decode';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { checkInput, decodeLuma, decodeRgb } from '../../libs/watermark/src/codec';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { TraceInput, traceColluders } from '../../libs/watermark/src/trace';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ExtractDiagnostics } from '../../libs/watermark/src/types';
import sharp from 'sharp';
import { registrationError, trueGeometry } from './truth';
import { informationBits } from './information';

const PHOTOS = join(__dirname, '../../../shared/corpus/photos');
const KEY: WatermarkKey = { secret: 'bench-secret', version: 'v3' };
const PAYLOADS = 5;

async function main(): Promise<void> {
  const aRe = new RegExp(process.argv[2] ?? '.');
  const pRe = new RegExp(process.argv[3] ?? '.');
  const only = process.argv[4] ? process.argv[4].split(',').map(Number) : null;
  const derived = await derivedPhotos(PHOTOS);
  const photos = [...readdirSync(PHOTOS).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort(), ...derived.keys()];
  const rows = [...ATTACKS, ...GEOMETRY_ATTACKS];
  const perMarked = rows.length + BLIND_ATTACKS.length;
  // issue 34 rows after the older ones, with main.ts's seeds (drawn from the payload)
  const all = [...rows, ...NEW_ATTACKS];
  let ok = 0;
  let total = 0;
  for (let p = 0; p < photos.length; p++) {
    const photo = photos[p];
    if (!pRe.test(photo)) continue;
    const orig = derived.get(photo) ?? readFileSync(join(PHOTOS, photo));
    const r = rng(photo.length * 7919 + photo.charCodeAt(0));
    const ids = Array.from({ length: PAYLOADS }, () => benchPayload(r));
    // REPLAY_CANDIDATES=<n>: extract as the service does, with the issuance list (this photo's payloads and
    // never-embedded issued payloads up to n)
    const nCand = Number(process.env.REPLAY_CANDIDATES ?? 0);
    const candidates = nCand > 0 ? issuanceList(ids, nCand) : [];
    for (let k = 0; k < PAYLOADS; k++) {
      const id = ids[k];
      if (only && !only.includes(k)) continue;
      const e = await embedImage(orig, id, { key: KEY });
      const mi = p * PAYLOADS + k;
      for (let a = 0; a < all.length; a++) {
        const [name, attack] = all[a];
        if (!aRe.test(name)) continue;
        const seed = a < rows.length ? 1 + mi * perMarked + a : Number(id & 0xfffffn) * 64 + (a - rows.length);
        const attacked = await attack(e.data, rng(seed));
        const steps = /chain of (\d)/.exec(name);
        const plan = steps ? ` [${chainOrder(rng(seed)).slice(0, Number(steps[1])).map(([s]) => s).join(' > ')}]` : '';
        // REPLAY_SAVE=<dir>: keep each attacked image (photo-payload-seed) for closer probing
        if (process.env.REPLAY_SAVE) writeFileSync(join(process.env.REPLAY_SAVE, `${photo}-${k}-${seed}.png`), attacked);
        const t = performance.now();
        const res = await extractImage(attacked, orig, { key: KEY, diagnostics: true, ...(candidates.length ? { candidates } : {}) });
        const ms = performance.now() - t;
        const good = res.status === 'detected' && res.payload === id;
        total++;
        if (good) ok++;
        // no registration found: no decoding diagnostics then
        const reg = res.diagnostics?.registration ?? null;
        const diag = res.diagnostics?.registeredDecoding ?? null;
        // per layer: share of coded bits whose sign is right, and the soft agreement with the true code word
        const zs = diag ? readout(diag.zs, diag.joint, id) : '-';
        // REPLAY_DUMP=<file>: one JSON line per case with what candidate tracing read (needs REPLAY_CANDIDATES)
        const ti = res.diagnostics?.traceInput;
        if (process.env.REPLAY_DUMP && ti) appendFileSync(process.env.REPLAY_DUMP, JSON.stringify({ photo, k, name, id: id.toString(), good, zs: ti.zs.map((z) => Array.from(z)) }) + '\n');
        let truthNote = '';
        if (process.env.REPLAY_TRUTH && reg) {
          const om = await sharp(orig).metadata();
          const im = await sharp(attacked).metadata();
          const truth = await trueGeometry(attack, () => rng(seed), om.width ?? 0, om.height ?? 0);
          const { s: so, si } = workingScales({ width: om.width ?? 0, height: om.height ?? 0 }, { width: im.width ?? 1, height: im.height ?? 1 });
          truthNote = truth
            ? ` truth: scale ${Math.sqrt(Math.abs(truth.affine[0] * truth.affine[4] - truth.affine[1] * truth.affine[3])).toFixed(3)}, fit rms ${truth.rms.toFixed(2)} px (used ${truth.used}, ${truth.markers} grid squares), affine [${truth.affine.map((v) => v.toFixed(3)).join(", ")}], registration off by ${registrationError(reg.H, truth, im.width ?? 0, im.height ?? 0, si, so).toFixed(1)} px`
            : ' truth: -';
          // REPLAY_AT_TRUTH=1: also decode at the true geometry (is the registration or the mark what failed?)
          if (truth && process.env.REPLAY_AT_TRUTH) truthNote += await decodeAtTruth(orig, attacked, truth.affine, id, candidates);
        }
        const tr = res.evidence?.transform;
        process.stdout.write(
          `${good ? 'OK  ' : 'FAIL'} ${photo} k=${k} seed=${seed} ${name}${plan}: ${res.status} ${res.confidence.toFixed(3)} ${ms.toFixed(0)}ms reg.ncc=${reg?.ncc.toFixed(3)}${reg?.placedOnMark ? ' (placed on the mark)' : ''} true=${zs}${diag ? ` fir=${diag.firGain.toFixed(2)}` : ''}${tr ? ` rot=${tr.rotationDeg} s=${tr.scale} m=${tr.mirrored}` : ''}${res.trace ? ` trace: threshold ${res.trace.threshold.toFixed(2)}, accused ${res.trace.accused.map((a) => `${a.payload === id ? 'self' : 'OTHER'} z=${a.z.toFixed(2)}`).join(',') || '-'}, best innocent ${res.trace.bestInnocentZ.toFixed(2)}` : ''}${truthNote}\n`,
        );
      }
    }
  }
  process.stdout.write(`TOTAL ${ok}/${total}\n`);
}
/** Per layer: how many coded bits read with the right sign, and the soft agreement with the true code word. */
function layerAgreement(zs: Float64Array[], id: bigint): string {
  const coded = convEncode(infoBits(id, KEY));
  return zs
    .map((z) => {
      let right = 0;
      let corr = 0;
      let abs = 0;
      z.forEach((v, i) => {
        const s = coded[i] ? v : -v;
        if (s > 0) right++;
        corr += s;
        abs += Math.abs(v);
      });
      return `${right}:${(corr / abs).toFixed(2)}`;
    })
    .join('/');
}

/**
 * What a decoding read: layerAgreement, then the bits of information on the true code word (information.ts) in the
 * layers' z-scores together and in the joint estimate when it was computed (a payload has 104, so a copy well below
 * that cannot be decoded alone).
 */
function readout(zs: Float64Array[], joint: Float64Array | undefined, id: bigint): string {
  const coded = convEncode(infoBits(id, KEY));
  return `${layerAgreement(zs, id)} info=${informationBits(zs, coded).toFixed(0)}${joint ? `/joint ${informationBits([joint], coded).toFixed(0)}` : ''}`;
}

/** Registered decoding at the attack's true geometry: each layer's right coded bits and soft agreement, and tracing. */
async function decodeAtTruth(orig: Buffer, attacked: Buffer, t: number[], id: bigint, candidates: bigint[]): Promise<string> {
  const oh = checkInput(orig, 1e9);
  const ih = checkInput(attacked, 1e9);
  const { s, si } = workingScales(oh, ih);
  const O = await decodeLuma(orig, oh, s);
  const I = await decodeLuma(attacked, ih, si);
  // copy pixel (x, y) -> original pixel: working coordinates on both sides
  const H = new Float64Array([s * t[0] / si, s * t[1] / si, s * t[2], s * t[3] / si, s * t[4] / si, s * t[5], 0, 0, 1]);
  const diag: ExtractDiagnostics = { registration: null, registeredDecoding: null };
  const out: { input: TraceInput | null } = { input: null };
  const d = await registeredDecode(O, I, H, KEY, () => decodeRgb(orig, oh, s).catch(() => null), diag, out);
  const rd = diag.registeredDecoding;
  const layers = rd ? readout(rd.zs, rd.joint, id) : '-';
  const tr = out.input && candidates.length ? traceColluders(out.input, candidates, KEY, FALSE_MATCH_BOUND) : null;
  const self = tr?.accused.find((a) => a.payload === id);
  return ` AT TRUTH: ${d && d.payload === id ? 'decoded' : 'not decoded'} ${layers}${tr ? ` trace ${self ? `self z=${self.z.toFixed(2)}` : '-'} (threshold ${tr.threshold.toFixed(2)})` : ''}`;
}

main().catch((e: unknown) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + '\n');
  process.exit(1);
});
