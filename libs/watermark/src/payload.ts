import { createHmac } from 'node:crypto';
import { WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Payload layout: 64-bit id + 40-bit keyed MAC tag = 104 info bits, + 6 zero tail bits, rate-1/3 K=7 convolutional code. */
export const PAYLOAD_BITS = 64;
export const TAG_BITS = 40;
export const INFO_BITS = PAYLOAD_BITS + TAG_BITS;
const K = 7;
const TAIL = K - 1;
const GENERATORS = [0o133, 0o171, 0o165];
export const CODED_BITS = (INFO_BITS + TAIL) * GENERATORS.length; // 330
const MAX_PAYLOAD = (1n << 64n) - 1n;

export function checkPayload(payload: bigint): void {
  if (typeof payload !== 'bigint' || payload < 0n || payload > MAX_PAYLOAD) throw new RangeError('payload must be a 64-bit unsigned bigint');
}

/** 40-bit tag = HMAC-SHA256(secret, "cp-wm-tag|" + version + id), truncated. Keyed, so another key/version never validates. */
export function payloadTag(payload: bigint, key: WatermarkKey): bigint {
  const id = Buffer.alloc(8);
  id.writeBigUInt64BE(payload);
  const mac = createHmac('sha256', key.secret).update(`cp-wm-tag|${key.version}|`).update(id).digest();
  return mac.readBigUInt64BE(0) >> BigInt(64 - TAG_BITS);
}

export function infoBits(payload: bigint, key: WatermarkKey): Uint8Array {
  checkPayload(payload);
  const bits = new Uint8Array(INFO_BITS);
  for (let i = 0; i < PAYLOAD_BITS; i++) bits[i] = Number((payload >> BigInt(PAYLOAD_BITS - 1 - i)) & 1n);
  const tag = payloadTag(payload, key);
  for (let i = 0; i < TAG_BITS; i++) bits[PAYLOAD_BITS + i] = Number((tag >> BigInt(TAG_BITS - 1 - i)) & 1n);
  return bits;
}

function parity(x: number): number {
  let v = x;
  v ^= v >> 4;
  v ^= v >> 2;
  v ^= v >> 1;
  return v & 1;
}

/** Convolutional encoder (zero-terminated). */
export function convEncode(info: Uint8Array): Uint8Array {
  const out = new Uint8Array((info.length + TAIL) * GENERATORS.length);
  let state = 0;
  let o = 0;
  for (let i = 0; i < info.length + TAIL; i++) {
    const b = i < info.length ? info[i] : 0;
    const reg = (b << (K - 1)) | state;
    for (const g of GENERATORS) out[o++] = parity(reg & g);
    state = reg >> 1;
  }
  return out;
}

/**
 * Soft-decision Viterbi decoder. soft[i] > 0 means coded bit i is more likely 1; 0 = erased.
 * Returns the most likely info bits of a zero-terminated code word.
 */
export function viterbiDecode(soft: Float64Array, infoLen: number): Uint8Array {
  const nStates = 1 << (K - 1);
  const steps = infoLen + TAIL;
  const G = GENERATORS.length;
  const outBits = new Uint8Array(nStates * 2 * G);
  for (let s = 0; s < nStates; s++) {
    for (let b = 0; b < 2; b++) {
      const reg = (b << (K - 1)) | s;
      for (let g = 0; g < G; g++) outBits[(s * 2 + b) * G + g] = parity(reg & GENERATORS[g]);
    }
  }
  let metric = new Float64Array(nStates).fill(num.NEGATIVE_INFINITY);
  metric[0] = 0;
  let next = new Float64Array(nStates);
  const prev = new Uint8Array(steps * nStates); // previous state's low bit info is encoded by the state index
  const prevState = new Uint16Array(steps * nStates);
  // branch metric of each output pattern (G bits -> index), per step
  const nPat = 1 << G;
  const patOf = new Uint8Array(nStates * 2);
  for (let sb = 0; sb < nStates * 2; sb++) {
    let q = 0;
    for (let g = 0; g < G; g++) q |= outBits[sb * G + g] << g;
    patOf[sb] = q;
  }
  const pm = new Float64Array(nPat);
  for (let t = 0; t < steps; t++) {
    next.fill(num.NEGATIVE_INFINITY);
    const maxB = t < infoLen ? 2 : 1;
    for (let q = 0; q < nPat; q++) {
      let bm = 0;
      for (let g = 0; g < G; g++) {
        const v = soft[t * G + g];
        bm += (q >> g) & 1 ? v : -v;
      }
      pm[q] = bm;
    }
    for (let s = 0; s < nStates; s++) {
      const m = metric[s];
      if (m === num.NEGATIVE_INFINITY) continue;
      for (let b = 0; b < maxB; b++) {
        const ns = ((b << (K - 1)) | s) >> 1;
        const bm = pm[patOf[s * 2 + b]];
        const cand = m + bm;
        if (cand > next[ns]) {
          next[ns] = cand;
          prev[t * nStates + ns] = b;
          prevState[t * nStates + ns] = s;
        }
      }
    }
    const tmp = metric;
    metric = next;
    next = tmp;
  }
  const bits = new Uint8Array(steps);
  let s = 0;
  for (let t = steps - 1; t >= 0; t--) {
    bits[t] = prev[t * nStates + s];
    s = prevState[t * nStates + s];
  }
  return bits.subarray(0, infoLen);
}

/**
 * List size of the registered decoding (issue 34, fourth pass): the LIST_SIZE most likely code words are each tested
 * against the keyed tag, the most likely passing one kept. Where the most likely code word is a few coded-bit errors
 * off (a small crop, a heavily resampled copy), the right one is often among the next; the tag, not the metric, tells
 * them apart. On noisy code words (Gaussian noise of sd 1.25 on +-1 soft values, 400 trials) 16 recovered 234 where
 * the single most likely gave 122 (4: 191, 8: 213, 32: 259). Every listed code word is one chance of a false 2^-40
 * match, so the design bound counts each (extract.ts: DECODING_ATTEMPTS); 16 keeps eight extractions of a PDF within
 * 1e-9.
 */
export const LIST_SIZE = 16;

/**
 * List Viterbi decoder (parallel list algorithm): per state the `list` best partial paths are kept, merged from the
 * two predecessors at each step; the terminated paths in state 0 are traced back best first. Entry 0 is
 * viterbiDecode's code word (the same metric and tie order), the others the next most likely distinct ones.
 */
export function listViterbiDecode(soft: Float64Array, infoLen: number, list: number): Uint8Array[] {
  const nStates = 1 << (K - 1);
  const steps = infoLen + TAIL;
  const G = GENERATORS.length;
  const half = nStates >> 1;
  // output pattern (G bits as an index) of the transition from state s with input bit b
  const patOf = new Uint8Array(nStates * 2);
  for (let s = 0; s < nStates; s++) {
    for (let b = 0; b < 2; b++) {
      const reg = (b << (K - 1)) | s;
      let q = 0;
      for (let g = 0; g < G; g++) q |= parity(reg & GENERATORS[g]) << g;
      patOf[s * 2 + b] = q;
    }
  }
  const L = list;
  let metric = new Float64Array(nStates * L).fill(num.NEGATIVE_INFINITY);
  metric[0] = 0;
  let next = new Float64Array(nStates * L);
  // back pointers: predecessor state and its list rank, per step, state and rank
  const fromState = new Uint8Array(steps * nStates * L);
  const fromRank = new Uint8Array(steps * nStates * L);
  const pm = new Float64Array(1 << G);
  for (let t = 0; t < steps; t++) {
    next.fill(num.NEGATIVE_INFINITY);
    for (let q = 0; q < pm.length; q++) {
      let bm = 0;
      for (let g = 0; g < G; g++) {
        const v = soft[t * G + g];
        bm += (q >> g) & 1 ? v : -v;
      }
      pm[q] = bm;
    }
    // the next state ns = (b << (K-2)) | (s >> 1): its input bit is its top bit, its predecessors s = 2 (ns mod half) + {0, 1}
    const lastState = t < infoLen ? nStates : half;
    for (let ns = 0; ns < lastState; ns++) {
      const b = ns >= half ? 1 : 0;
      const s0 = (ns % half) * 2;
      const s1 = s0 + 1;
      const bm0 = pm[patOf[s0 * 2 + b]];
      const bm1 = pm[patOf[s1 * 2 + b]];
      // merge the two predecessors' sorted lists (the lower state first on ties, as viterbiDecode)
      let i0 = 0;
      let i1 = 0;
      const base = ns * L;
      const bp = t * nStates * L + base;
      for (let r = 0; r < L; r++) {
        const m0 = i0 < L ? metric[s0 * L + i0] + bm0 : num.NEGATIVE_INFINITY;
        const m1 = i1 < L ? metric[s1 * L + i1] + bm1 : num.NEGATIVE_INFINITY;
        if (m0 === num.NEGATIVE_INFINITY && m1 === num.NEGATIVE_INFINITY) break;
        if (m0 >= m1) {
          next[base + r] = m0;
          fromState[bp + r] = s0;
          fromRank[bp + r] = i0++;
        } else {
          next[base + r] = m1;
          fromState[bp + r] = s1;
          fromRank[bp + r] = i1++;
        }
      }
    }
    const tmp = metric;
    metric = next;
    next = tmp;
  }
  const out: Uint8Array[] = [];
  for (let r0 = 0; r0 < L && metric[r0] !== num.NEGATIVE_INFINITY; r0++) {
    const bits = new Uint8Array(steps);
    let s = 0;
    let r = r0;
    for (let t = steps - 1; t >= 0; t--) {
      bits[t] = s >= half ? 1 : 0;
      const k = t * nStates * L + s * L + r;
      s = fromState[k];
      r = fromRank[k];
    }
    out.push(bits.subarray(0, infoLen));
  }
  return out;
}

export interface DecodedPayload {
  payload: bigint;
  tagOk: boolean;
  /** Soft agreement between the observations and the re-encoded code word, -1..1. */
  agreement: number;
  /** Normalised correlation z-score of the soft values with the re-encoded code word. */
  score: number;
  /** Coded bits whose observed sign agrees with the re-encoded code word (hard decisions, of CODED_BITS). */
  codedAgree: number;
}

/**
 * The most likely code word, or with `list` > 1 the most likely of the `list` best whose tag matches the keyed MAC of
 * its id (when none does, the most likely one, tagOk false). Each listed code word is one decoding attempt.
 */
export function decodeSoft(soft: Float64Array, key: WatermarkKey, list = 1): DecodedPayload {
  if (list <= 1) return decodedOf(viterbiDecode(soft, INFO_BITS), soft, key);
  let first: DecodedPayload | null = null;
  for (const bits of listViterbiDecode(soft, INFO_BITS, list)) {
    const d = decodedOf(bits, soft, key);
    if (d.tagOk) return d;
    first ??= d;
  }
  return first ?? decodedOf(viterbiDecode(soft, INFO_BITS), soft, key);
}

function decodedOf(bits: Uint8Array, soft: Float64Array, key: WatermarkKey): DecodedPayload {
  let payload = 0n;
  for (let i = 0; i < PAYLOAD_BITS; i++) payload = (payload << 1n) | BigInt(bits[i]);
  let tag = 0n;
  for (let i = 0; i < TAG_BITS; i++) tag = (tag << 1n) | BigInt(bits[PAYLOAD_BITS + i]);
  const tagOk = tag === payloadTag(payload, key);
  const coded = convEncode(bits);
  let corr = 0;
  let abs = 0;
  let sq = 0;
  let agree = 0;
  for (let i = 0; i < coded.length; i++) {
    const v = soft[i];
    corr += coded[i] ? v : -v;
    if (coded[i] ? v > 0 : v < 0) agree++;
    abs += math.abs(v);
    sq += v * v;
  }
  return { payload, tagOk, agreement: abs > 0 ? corr / abs : 0, score: sq > 0 ? corr / math.sqrt(sq) : 0, codedAgree: agree };
}
