import { SignalOutcome } from '../evidence';
import { EVIDENCE_WEIGHTS } from '../weights';
import { decodeSdMark, RgbImage, SD_MARK_FALSE_ALARM } from './sd-watermark';

/** Tiles per side of the regional agreement map (each tile pools many 4×4 blocks); values from 0.5 (chance) to 1. */
const TILES = 16;

export function sdMarkSignal(image: RgbImage): SignalOutcome {
  const result = decodeSdMark(image);
  const best = result.best;
  if (!best) {
    return {
      evidence: [{
        signal: 'sdWatermark',
        finding: 'sdWatermark.tooSmall',
        description: 'The image is too small to carry a Stable Diffusion mark.',
        direction: 'neutral',
        weight: 0,
        details: {},
      }],
    };
  }
  const details = {
    message: best.message,
    matchingBits: best.matchingBits,
    totalBits: best.totalBits,
    chanceProbability: best.chanceProbability,
    correctedChanceProbability: result.correctedChanceProbability,
    hypotheses: result.hypotheses,
    falseAlarmLimit: SD_MARK_FALSE_ALARM,
  };
  // The chance is the binomial tail for fair-coin bits (an unmarked image's content biases them), times the readings
  // tried: a model figure, said as such; the measured false-alarm rate is the benchmark's (docs/ai-detection.md).
  const chance = `chance of such a match on an unmarked image if its bits were fair coins ${result.correctedChanceProbability.toExponential(1)} (all ${result.hypotheses} readings counted)`;
  if (!result.detected) {
    return {
      evidence: [{
        signal: 'sdWatermark',
        finding: 'sdWatermark.notFound',
        // A near miss (e.g. 40/48 bits) is not "as likely as chance": the reader gets the figure and the bar.
        description: `No Stable Diffusion mark counted: best match ${best.matchingBits}/${best.totalBits} bits; ${chance}, counted only below ${SD_MARK_FALSE_ALARM.toExponential(0)}. Most generators do not write this mark and a JPEG re-save or resize removes it, so its absence says nothing.`,
        direction: 'neutral',
        weight: 0,
        details,
      }],
    };
  }
  // Regional map: the share of blocks per tile that carry the expected bit (about 0.5 where the mark is absent).
  const columns = Math.min(TILES, best.blocksX);
  const rows = Math.min(TILES, best.blocksY);
  const sums = new Float32Array(columns * rows);
  const counts = new Float32Array(columns * rows);
  for (let by = 0; by < best.blocksY; by++) {
    const row = Math.floor((by * rows) / best.blocksY);
    for (let bx = 0; bx < best.blocksX; bx++) {
      const cell = row * columns + Math.floor((bx * columns) / best.blocksX);
      sums[cell] += best.blockAgreement[by * best.blocksX + bx];
      counts[cell] += 1;
    }
  }
  // A tile agreeing less often than chance is noise, not a sign of a captured image: drawn as "no lean" (white).
  const values = sums.map((s, i) => (counts[i] > 0 ? Math.max(0.5, s / counts[i]) : 0.5));
  return {
    evidence: [{
      signal: 'sdWatermark',
      finding: 'sdWatermark.detected',
      description: `Stable Diffusion invisible mark found: ${best.label}, ${best.matchingBits}/${best.totalBits} bits match; ${chance}.`,
      direction: 'ai',
      weight: EVIDENCE_WEIGHTS.sdWatermark,
      details,
    }],
    regional: { signal: 'sdWatermark', columns, rows, values },
  };
}
