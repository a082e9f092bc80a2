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

export function decodeSoft(soft: Float64Array, key: WatermarkKey): DecodedPayload {
  const bits = viterbiDecode(soft, INFO_BITS);
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
