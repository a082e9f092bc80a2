import { UNCALIBRATED_CLASSIFIER_MAX } from '../weights';

/**
 * What the operator measured for a classifier on labelled folders (`npm run admin -- ai-classifier calibrate`):
 * counts per score band, the likelihood ratio of each band, and from which score the false-positive rate is
 * bounded by the rate the operator set. The detector weighs a score by ln(likelihood ratio) of its band.
 */
export interface ClassifierCalibration {
  version: 1;
  createdAt: string;
  model: { fileName: string; sha256: string };
  samples: { real: number; generated: number };
  rocAuc: number;
  /** The operator's bound on false alarms (real images called `likely_ai` by the classifier alone). */
  maxFalsePositiveRate: number;
  /** Lowest score from which the 95% upper bound of the false-positive rate is ≤ maxFalsePositiveRate, or null. */
  decisiveAiFrom: number | null;
  /** Highest score below which the 95% upper bound of the share of generated images is ≤ maxFalsePositiveRate, or null. */
  decisiveCaptureBelow: number | null;
  bands: CalibrationBand[];
  thresholds: ThresholdRate[];
}

export interface CalibrationBand {
  from: number;
  to: number;
  real: number;
  generated: number;
  likelihoodRatio: number;
  /** ln(likelihood ratio), 0 where the band abstains, capped where the calibration does not support a decision. */
  weight: number;
}

export interface ThresholdRate {
  threshold: number;
  /** Real images scoring at or above the threshold. */
  falsePositiveRate: number;
  falsePositiveRateUpper95: number;
  /** Generated images scoring at or above the threshold. */
  truePositiveRate: number;
}

/** A band whose ratio lies within [1/1.5, 1.5] abstains: the score there does not tell the two folders apart. */
export const ABSTAIN_RATIO = 1.5;
/** No band weighs more than this, however lopsided its counts (a few hundred samples do not measure 1:1000). */
export const MAX_CALIBRATED_WEIGHT = 4;

/** ROC AUC by the Mann–Whitney statistic: the chance a generated image outscores a real one (ties count half). */
export function rocAuc(real: readonly number[], generated: readonly number[]): number {
  if (real.length === 0 || generated.length === 0) return Number.NaN;
  const sorted = [...real].sort((a, b) => a - b);
  let wins = 0;
  for (const g of generated) {
    let below = 0;
    let equal = 0;
    // binary search: count of real scores < g and == g
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < g) lo = mid + 1;
      else hi = mid;
    }
    below = lo;
    while (lo + equal < sorted.length && sorted[lo + equal] === g) equal++;
    wins += below + equal / 2;
  }
  return wins / (real.length * generated.length);
}

function logBinomialCdf(k: number, n: number, p: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return k >= n ? 0 : Number.NEGATIVE_INFINITY;
  let logTerm = n * Math.log(1 - p); // i = 0
  let total = logTerm;
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i) + Math.log(p / (1 - p));
    total = Math.max(total, logTerm) + Math.log1p(Math.exp(-Math.abs(total - logTerm)));
  }
  return total;
}

/** Clopper–Pearson one-sided 95% upper bound of a rate seen `k` times in `n` trials (3/n for 0 in n, roughly). */
export function upperBound95(k: number, n: number): number {
  if (n === 0) return 1;
  if (k >= n) return 1;
  let lo = k / n;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (Math.exp(logBinomialCdf(k, n, mid)) > 0.05) lo = mid;
    else hi = mid;
  }
  return hi;
}

export interface CalibrationOptions {
  bands: number;
  maxFalsePositiveRate: number;
  thresholds: number[];
  model: { fileName: string; sha256: string };
  now: Date;
}

/** Builds the calibration from the scores of the labelled folders (a pure function: the command only feeds it). */
export function buildCalibration(real: readonly number[], generated: readonly number[], options: CalibrationOptions): ClassifierCalibration {
  if (real.length === 0 || generated.length === 0) throw new RangeError('both folders need at least one scored image');
  const count = (scores: readonly number[], from: number, to: number, last: boolean): number =>
    scores.filter((s) => s >= from && (s < to || (last && s <= to))).length;
  const rate = (scores: readonly number[], predicate: (s: number) => boolean): number => scores.filter(predicate).length;
  // The lowest band edge from which false positives are bounded; the highest below which misses are.
  const edges = Array.from({ length: options.bands + 1 }, (_, i) => i / options.bands);
  const decisiveAiFrom = edges.find((t) => upperBound95(rate(real, (s) => s >= t), real.length) <= options.maxFalsePositiveRate && t > 0) ?? null;
  const decisiveCaptureBelow = [...edges].reverse().find((t) => t < 1 && upperBound95(rate(generated, (s) => s < t), generated.length) <= options.maxFalsePositiveRate && t > 0) ?? null;
  const bands = edges.slice(0, -1).map((from, i): CalibrationBand => {
    const to = edges[i + 1];
    const r = count(real, from, to, i === options.bands - 1);
    const g = count(generated, from, to, i === options.bands - 1);
    // Half a count added to every cell: an empty band gets a finite ratio that says "few samples", not infinity.
    const likelihoodRatio = ((g + 0.5) / (generated.length + 0.5 * options.bands)) / ((r + 0.5) / (real.length + 0.5 * options.bands));
    const band = { from, to, real: r, generated: g, likelihoodRatio: Math.round(likelihoodRatio * 10_000) / 10_000, weight: 0 };
    return { ...band, weight: bandWeight(band, decisiveAiFrom, decisiveCaptureBelow) };
  });
  return {
    version: 1,
    createdAt: options.now.toISOString(),
    model: options.model,
    samples: { real: real.length, generated: generated.length },
    rocAuc: Math.round(rocAuc(real, generated) * 10_000) / 10_000,
    maxFalsePositiveRate: options.maxFalsePositiveRate,
    decisiveAiFrom,
    decisiveCaptureBelow,
    bands,
    thresholds: options.thresholds.map((threshold) => {
      const fp = rate(real, (s) => s >= threshold);
      return {
        threshold,
        falsePositiveRate: fp / real.length,
        falsePositiveRateUpper95: Math.round(upperBound95(fp, real.length) * 10_000) / 10_000,
        truePositiveRate: rate(generated, (s) => s >= threshold) / generated.length,
      };
    }),
  };
}

function bandWeight(band: { from: number; to: number; likelihoodRatio: number }, decisiveAiFrom: number | null, decisiveCaptureBelow: number | null): number {
  if (band.likelihoodRatio <= ABSTAIN_RATIO && band.likelihoodRatio >= 1 / ABSTAIN_RATIO) return 0;
  const weight = Math.max(-MAX_CALIBRATED_WEIGHT, Math.min(MAX_CALIBRATED_WEIGHT, Math.log(band.likelihoodRatio)));
  // Outside the range where the operator's false-positive bound holds, the classifier weighs as an unsigned claim.
  if (weight > 0 && (decisiveAiFrom === null || band.from < decisiveAiFrom)) return Math.min(weight, UNCALIBRATED_CLASSIFIER_MAX);
  if (weight < 0 && (decisiveCaptureBelow === null || band.to > decisiveCaptureBelow)) return Math.max(weight, -UNCALIBRATED_CLASSIFIER_MAX);
  return Math.round(weight * 1000) / 1000;
}

/** The band of a score (the last band includes 1). */
export function calibrationBand(calibration: ClassifierCalibration, score: number): CalibrationBand {
  const s = Math.min(1, Math.max(0, score));
  return calibration.bands.find((band, i) => s >= band.from && (s < band.to || i === calibration.bands.length - 1)) ?? calibration.bands[calibration.bands.length - 1];
}

/** Checks a calibration file read from disk (an operator's file: every field is verified before use). */
export function parseCalibration(json: string): ClassifierCalibration {
  const value = JSON.parse(json) as Partial<ClassifierCalibration>;
  const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
  if (value.version !== 1 || !Array.isArray(value.bands) || value.bands.length === 0 || !value.model || typeof value.model.sha256 !== 'string') {
    throw new Error('not a classifier calibration file (version 1)');
  }
  for (const band of value.bands) {
    if (!finite(band.from) || !finite(band.to) || !finite(band.likelihoodRatio) || band.likelihoodRatio <= 0) {
      throw new Error('calibration band with a missing or out-of-range value');
    }
  }
  const decisiveAiFrom = finite(value.decisiveAiFrom) ? value.decisiveAiFrom : null;
  const decisiveCaptureBelow = finite(value.decisiveCaptureBelow) ? value.decisiveCaptureBelow : null;
  // Weights are recomputed from the measured ratios and bounds, never taken from the file as written.
  const bands = value.bands.map((band) => ({ ...band, weight: bandWeight(band, decisiveAiFrom, decisiveCaptureBelow) }));
  return { ...(value as ClassifierCalibration), decisiveAiFrom, decisiveCaptureBelow, bands };
}
