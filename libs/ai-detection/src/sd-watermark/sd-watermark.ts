/**
 * The public invisible mark of Stable Diffusion pipelines (`invisible-watermark`, method `dwtDct`).
 *
 * Facts from the public sources (imwatermark `maxDct.py`, diffusers and Stability `generative-models`):
 * the U plane of OpenCV's BGR→YUV conversion is split by a one-level Haar DWT; its LL band is cut into 4×4 blocks
 * in raster order; block n carries bit n mod L of the message; the bit sits in the coefficient of largest magnitude
 * among block positions 1–15 (not position 0), quantised with step 36: |c| mod 36 > 18 reads 1. Each bit is the
 * mean over its blocks. U is 0.492·(B−Y) + 128 for 8-bit images and + 0.5 for float arrays, and some pipelines pass
 * RGB where BGR is expected (swapped channels), so the decoder reads the four U variants.
 */

export const SD_MARK_STEP = 36;
const BLOCK = 4;

export interface SdMarkMessage {
  id: 'sd1' | 'sd2' | 'sdxl-diffusers' | 'sgm';
  label: string;
  bits: readonly number[];
}

function bytesToBits(text: string): number[] {
  const bits: number[] = [];
  for (const byte of Buffer.from(text, 'utf8')) {
    for (let i = 7; i >= 0; i--) {
      bits.push((byte >> i) & 1);
    }
  }
  return bits;
}

/** Python's `bin(x)[2:]`: leading zeros dropped (so the `generative-models` message has 46 bits, not 48). */
function binaryLiteralToBits(literal: string): number[] {
  return [...BigInt(literal).toString(2)].map((c) => (c === '1' ? 1 : 0));
}

/** The messages the public pipelines embed. */
export const SD_MARK_MESSAGES: readonly SdMarkMessage[] = [
  { id: 'sd1', label: 'Stable Diffusion 1.x ("StableDiffusionV1")', bits: bytesToBits('StableDiffusionV1') },
  { id: 'sd2', label: 'Stable Diffusion 2.x ("SDV2")', bits: bytesToBits('SDV2') },
  { id: 'sdxl-diffusers', label: 'SDXL (diffusers 48-bit message)', bits: binaryLiteralToBits('0b101100111110110010010000011110111011000110011110') },
  { id: 'sgm', label: 'SDXL / SVD (Stability generative-models message)', bits: binaryLiteralToBits('0b001010101111111010000111100111001111010100101110') },
];

/** How the U plane was computed by the embedding pipeline. */
export interface UVariant {
  /** true when the pipeline handed RGB pixels to a BGR conversion. */
  swapped: boolean;
  /** 128 for 8-bit images, 0.5 for float arrays. */
  offset: number;
}

export const U_VARIANTS: readonly UVariant[] = [
  { swapped: false, offset: 128 },
  { swapped: true, offset: 128 },
  { swapped: false, offset: 0.5 },
  { swapped: true, offset: 0.5 },
];

/** Interleaved RGB pixels (3 bytes per pixel), as sharp's `.raw()` returns them. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * U plane of the image as OpenCV computes it for one variant. 8-bit conversions round and saturate; float ones
 * do not. Only the top-left `w4 × h4` area (multiples of 4) is used, like the encoder.
 */
export function uPlane(image: RgbImage, variant: UVariant): Float32Array {
  const w4 = Math.floor(image.width / 4) * 4;
  const h4 = Math.floor(image.height / 4) * 4;
  const out = new Float32Array(w4 * h4);
  const integer = variant.offset === 128;
  for (let y = 0; y < h4; y++) {
    let src = y * image.width * 3;
    let dst = y * w4;
    for (let x = 0; x < w4; x++, src += 3, dst++) {
      // "B" and "R" as the pipeline saw them.
      const r = variant.swapped ? image.data[src + 2] : image.data[src];
      const g = image.data[src + 1];
      const b = variant.swapped ? image.data[src] : image.data[src + 2];
      const luma = 0.299 * r + 0.587 * g + 0.114 * b;
      const u = 0.492 * (b - luma) + variant.offset;
      out[dst] = integer ? Math.min(255, Math.max(0, Math.round(u))) : u;
    }
  }
  return out;
}

/** LL band of a one-level Haar DWT (pywt convention: (a+b+c+d)/2). */
export function haarLowBand(plane: Float32Array, width: number, height: number): { ll: Float32Array; width: number; height: number } {
  const w2 = width >> 1;
  const h2 = height >> 1;
  const ll = new Float32Array(w2 * h2);
  for (let y = 0; y < h2; y++) {
    const row0 = 2 * y * width;
    const row1 = row0 + width;
    for (let x = 0; x < w2; x++) {
      const c = 2 * x;
      ll[y * w2 + x] = (plane[row0 + c] + plane[row0 + c + 1] + plane[row1 + c] + plane[row1 + c + 1]) / 2;
    }
  }
  return { ll, width: w2, height: h2 };
}

/** Index inside a 4×4 LL block (1–15) of the largest-magnitude coefficient, as the encoder chooses it. */
export function strongestPosition(ll: Float32Array, llWidth: number, bx: number, by: number): number {
  let best = 1;
  let bestAbs = -1;
  for (let p = 1; p < 16; p++) {
    const v = Math.abs(ll[(by * BLOCK + (p >> 2)) * llWidth + bx * BLOCK + (p & 3)]);
    // argmax keeps the first maximum.
    if (v > bestAbs) {
      bestAbs = v;
      best = p;
    }
  }
  return best;
}

/** One bit read from each 4×4 LL block (raster order), 0 or 1. */
export interface BlockReadout {
  bits: Uint8Array;
  blocksX: number;
  blocksY: number;
}

/**
 * LL bands of the U plane straight from the RGB pixels in one pass: `linear` without the offset (float pipelines:
 * U is linear in R, G, B), and `rounded` with the 8-bit pipeline's offset 128 and per-pixel rounding. Rounding
 * matters: it creates exact ties between coefficients, and the encoder picks the first of them.
 */
export function lowBandU(image: RgbImage, swapped: boolean): { linear: Float32Array; rounded: Float32Array; width: number; height: number } {
  const w2 = Math.floor(image.width / 4) * 2;
  const h2 = Math.floor(image.height / 4) * 2;
  const linear = new Float32Array(w2 * h2);
  const rounded = new Float32Array(w2 * h2);
  const { data, width } = image;
  // U = 0.492·(B − Y), Y = 0.299 R + 0.587 G + 0.114 B, with "B" and "R" as the pipeline saw them.
  const kR = swapped ? 0.492 * 0.886 : -0.492 * 0.299;
  const kG = -0.492 * 0.587;
  const kB = swapped ? -0.492 * 0.299 : 0.492 * 0.886;
  const u8 = (i: number): number => Math.min(255, Math.max(0, Math.round(kR * data[i] + kG * data[i + 1] + kB * data[i + 2] + 128)));
  for (let y = 0; y < h2; y++) {
    const row0 = 2 * y * width * 3;
    const row1 = row0 + width * 3;
    for (let x = 0; x < w2; x++) {
      const a = row0 + 6 * x;
      const b = row1 + 6 * x;
      const r = data[a] + data[a + 3] + data[b] + data[b + 3];
      const g = data[a + 1] + data[a + 4] + data[b + 1] + data[b + 4];
      const bl = data[a + 2] + data[a + 5] + data[b + 2] + data[b + 5];
      linear[y * w2 + x] = (kR * r + kG * g + kB * bl) / 2;
      rounded[y * w2 + x] = (u8(a) + u8(a + 3) + u8(b) + u8(b + 3)) / 2;
    }
  }
  return { linear, rounded, width: w2, height: h2 };
}

/** How far the encoder's quantisation can move the coefficient it marks: (⌊|c|/36⌋ + 0.25 or 0.75)·36 − |c| ∈ [−27, 27]. */
const MAX_SHIFT = 0.75 * SD_MARK_STEP;

/** Distance of a magnitude's residue (mod 36) to the encoder's lattice points 9 (bit 0) and 27 (bit 1). */
function latticeDistance(magnitude: number): number {
  const r = magnitude % SD_MARK_STEP;
  return Math.min(Math.abs(r - 0.25 * SD_MARK_STEP), Math.abs(r - 0.75 * SD_MARK_STEP));
}

/**
 * Block bits of an LL band whose values lack `2 · offset` (the U offset summed over 4 pixels, halved; 0: none lacking).
 *
 * Which coefficient carries the bit: the encoder quantises the block's strongest coefficient, which moves it by up to
 * ±27; when a neighbour is within that range (smooth areas: the LL values of a 4×4 block are close), the strongest
 * coefficient after embedding is often another one (27–55% of blocks on the corpus photos), and reading that
 * unmarked coefficient gives a bit biased by the content (a flat U plane reads 0), not the mark. So among the
 * coefficients that could have been the strongest before embedding (within 27 of the strongest now), the decoder
 * reads the one that sits nearest the encoder's lattice (|c| mod 36 near 9 or 27); the strongest wins ties.
 */
function readLowBand(ll: Float32Array, llWidth: number, llHeight: number, offset: number): BlockReadout {
  const blocksX = Math.floor(llWidth / BLOCK);
  const blocksY = Math.floor(llHeight / BLOCK);
  const bits = new Uint8Array(blocksX * blocksY);
  const shift = 2 * offset;
  const magnitudes = new Float64Array(16);
  for (let by = 0; by < blocksY; by++) {
    for (let bx = 0; bx < blocksX; bx++) {
      let strongest = 1;
      for (let p = 1; p < 16; p++) {
        magnitudes[p] = Math.abs(ll[(by * BLOCK + (p >> 2)) * llWidth + bx * BLOCK + (p & 3)] + shift);
        if (magnitudes[p] > magnitudes[strongest]) strongest = p;
      }
      let chosen = strongest;
      let best = latticeDistance(magnitudes[strongest]);
      for (let p = 1; p < 16; p++) {
        if (p === strongest || magnitudes[p] < magnitudes[strongest] - MAX_SHIFT) continue;
        const distance = latticeDistance(magnitudes[p]);
        if (distance < best) {
          best = distance;
          chosen = p;
        }
      }
      bits[by * blocksX + bx] = magnitudes[chosen] % SD_MARK_STEP > SD_MARK_STEP / 2 ? 1 : 0;
    }
  }
  return { bits, blocksX, blocksY };
}

function readVariant(band: ReturnType<typeof lowBandU>, offset: number): BlockReadout {
  // The 8-bit band already holds its offset.
  return offset === 128 ? readLowBand(band.rounded, band.width, band.height, 0) : readLowBand(band.linear, band.width, band.height, offset);
}

export function readBlocks(image: RgbImage, variant: UVariant): BlockReadout {
  return readVariant(lowBandU(image, variant.swapped), variant.offset);
}

/** P(X ≥ k) for X ~ Binomial(n, 1/2): the chance that an unmarked image matches k of n message bits. */
export function binomialTail(n: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  // Sum in log space: n is at most a few hundred bits.
  let logC = 0; // log C(n, 0)
  const terms: number[] = [];
  for (let i = 0; i <= n; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    if (i >= k) terms.push(logC - n * Math.LN2);
  }
  const max = Math.max(...terms);
  return Math.min(1, Math.exp(max) * terms.reduce((sum, t) => sum + Math.exp(t - max), 0));
}

export interface SdMarkCandidate {
  message: SdMarkMessage['id'];
  label: string;
  variant: UVariant;
  matchingBits: number;
  totalBits: number;
  /** Binomial chance of at least this many matching bits on an unmarked image, before the multiple-test correction. */
  chanceProbability: number;
  /** Per block: 1 when the block's bit equals the message bit it carries. */
  blockAgreement: Uint8Array;
  blocksX: number;
  blocksY: number;
}

export interface SdMarkResult {
  /** Best candidate over every message and U variant. */
  best: SdMarkCandidate | null;
  /** Chance probability of the best candidate times the number of hypotheses tried (Bonferroni). */
  correctedChanceProbability: number;
  hypotheses: number;
  /** true only when the corrected chance probability is below the false-alarm limit. */
  detected: boolean;
}

/** A mark is counted only beyond this false-alarm probability (after the multiple-test correction). */
export const SD_MARK_FALSE_ALARM = 1e-6;

/** Reads every public message in every U variant and keeps the least likely match by chance. */
export function decodeSdMark(image: RgbImage, messages: readonly SdMarkMessage[] = SD_MARK_MESSAGES): SdMarkResult {
  const hypotheses = messages.length * U_VARIANTS.length;
  let best: SdMarkCandidate | null = null;
  const bands = new Map<boolean, ReturnType<typeof lowBandU>>();
  for (const variant of U_VARIANTS) {
    let band = bands.get(variant.swapped);
    if (!band) {
      band = lowBandU(image, variant.swapped);
      bands.set(variant.swapped, band);
    }
    const readout = readVariant(band, variant.offset);
    const blockCount = readout.bits.length;
    for (const message of messages) {
      const length = message.bits.length;
      if (blockCount < length) continue;
      // Mean of the block bits per message bit, thresholded like imwatermark (mean·255 > 127).
      const ones = new Float64Array(length);
      const counts = new Float64Array(length);
      for (let n = 0; n < blockCount; n++) {
        ones[n % length] += readout.bits[n];
        counts[n % length] += 1;
      }
      let matching = 0;
      for (let i = 0; i < length; i++) {
        const bit = (ones[i] / counts[i]) * 255 > 127 ? 1 : 0;
        if (bit === message.bits[i]) matching++;
      }
      const chance = binomialTail(length, matching);
      if (!best || chance < best.chanceProbability) {
        const agreement = new Uint8Array(blockCount);
        for (let n = 0; n < blockCount; n++) {
          agreement[n] = readout.bits[n] === message.bits[n % length] ? 1 : 0;
        }
        best = {
          message: message.id,
          label: message.label,
          variant,
          matchingBits: matching,
          totalBits: length,
          chanceProbability: chance,
          blockAgreement: agreement,
          blocksX: readout.blocksX,
          blocksY: readout.blocksY,
        };
      }
    }
  }
  const corrected = best ? Math.min(1, best.chanceProbability * hypotheses) : 1;
  return { best, correctedChanceProbability: corrected, hypotheses, detected: corrected < SD_MARK_FALSE_ALARM };
}
