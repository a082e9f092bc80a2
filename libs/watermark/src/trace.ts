/**
 * Candidate tracing (issue 36): which of the recipients issued a mark on this original contributed to this copy?
 *
 * The registered decoding gives one observation per coded bit (the per-layer z-scores, summed: `w`). A copy made
 * from k recipients' copies (averaged, median, spliced) carries, to first order, the sum of their code words scaled
 * by their shares, so the ordinary decoding (one payload) finds at most one of them, or none. Here every candidate's
 * code word is regenerated and tested directly:
 *
 *   S_j = <w⊥, c_j> / ||w⊥||   over the coded bits T_j that are pseudo-random for that candidate,
 *
 * where w⊥ is `w` with the code words of the recipients already accused projected out (successive cancellation: the
 * colluders found so far no longer hide the others). Under "j did not contribute", c_j on T_j is independent of w⊥
 * (its bits are a pseudo-random function — the keyed 40-bit tag and, for payloads issued since issue 36, the mixed
 * serial, see issued-payload.ts — of an id the copy's makers did not use), each bit is uniform and the bits are
 * pairwise independent, so S_j has mean 0 and variance exactly 1 whatever w⊥ holds (other colluders' marks, attack
 * noise). Its tail is taken as Gaussian; the benchmark measures the null on unmarked copies and on payloads never
 * issued (README: the measured null). A candidate is accused when
 *
 *   bound = candidates x MAX_ROUNDS x Q(S_j)  <=  FALSE_MATCH_BOUND (104 x 2^-40, the single-leaker decode's level),
 *
 * a Bonferroni correction over every test the procedure may make (each round tests every remaining candidate once).
 *
 * Two tests per candidate (since issue 34's fifth pass). The sum of the layers is the best test when both layers
 * carry the mark alike; on a tiny or strongly resampled copy the fine layer is lost and only adds noise to the sum
 * (chelsea's 46 x 31 px two-step copy: S = 5.49 on the sum, 3.54 and 8.19 on the layers alone). So each candidate is
 * also tested on both layers' scores jointly: s_l = <w_l, c_j> / ||w_l|| (each standard normal under the null, with
 * correlation rho = <w_1, w_2> / (||w_1|| ||w_2||) over T_j, exact for pseudo-random bits), and
 *
 *   X_j = (s_1^2 - 2 rho s_1 s_2 + s_2^2) / (1 - rho^2),   P(X_j > x and S_j > 0) = exp(-x / 2) / 2
 *
 * (chi-square with 2 degrees of freedom, one-sided by the sign of the sum: (s_1, s_2) -> (-s_1, -s_2) keeps X_j and
 * flips S_j's sign). Each test is held to half the level: p_j = min(2 Q(S_j), 2 P_X(X_j)) is a p-value whatever holds,
 * and the candidate's score is the normal z of p_j (`z` below: Q(z) = p_j). A round accuses the smallest p_j when
 * candidates x MAX_ROUNDS x p_j <= level, the same criterion, threshold and bound as before. With one layer only
 * the sum is tested, at the whole level (z = S_j).
 *
 * A third test when the registered decoding computed the joint least-squares estimate of the coded bits (it does when
 * the layers alone do not decode: soft-decode.ts `jointSoft`, which cancels the cross-talk between neighbouring cells
 * and layers): J_j = <u, c_j> / ||u|| over T_j, u the estimate with the accused code words projected out. u is computed
 * from the copy and the original only, so under the null J_j has mean 0 and variance 1 like S_j. On a dark copy whose
 * contrast step clipped two thirds of the picture to black, at its true geometry, S_j = 5.51 and J_j = 8.65 (threshold
 * 7.11 with 20 candidates). With the three tests each is held to a third of the level: p_j = min(3 Q(S_j),
 * 3 P_X(X_j), 3 Q(J_j)); without the estimate the two tests above at half, as before.
 *
 * T_j: for scrambled payloads (top bit set) every coded bit but the first step's three (they depend only on the top
 * bit, the same for all); for serials embedded before issue 36, only the coded bits from step 64 on (driven by the
 * keyed tag: 138 bits), because serials share their high bits and so most of the rest of the code word.
 */
import { CODED_BITS, convEncode, infoBits, PAYLOAD_BITS } from './payload';
import { isScrambledPayload } from './issued-payload';
import { Layer } from './pattern';
import { AccusedRecipient, ColluderTrace, MixingKind, WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Rounds of successive cancellation at most (each accuses one recipient); fixed, as the Bonferroni factor counts them. */
export const MAX_ROUNDS = 8;
/** Candidates tested at most per inspection (more are refused by the caller: the bound grows with the count). */
export const MAX_CANDIDATES = 5000;

/** Per-cell statistics of the registered decoding, kept for the mixing analysis (which regions carry whose mark). */
export interface TraceCells {
  layers: Layer[];
  amps: Float32Array[];
  /** Per-cell mean residual (matched-filtered), per layer. */
  e: Float32Array[];
  /** Per-cell noise variance of `e` (0 = no sample), per layer. */
  v: Float32Array[];
}

/** What candidate tracing reads from the registered decoding. */
export interface TraceInput {
  /** Per-coded-bit z-scores of each layer. */
  zs: Float64Array[];
  cells: TraceCells | null;
  /** The joint least-squares estimate of the coded bits, when the registered decoding computed it (the third test). */
  estimate?: Float64Array;
}

/** Upper tail of the standard normal, accurate in relative terms far into the tail (continued fraction for z >= 3). */
export function normalTail(z: number): number {
  if (z < 0) return 1 - normalTail(-z);
  const phi = math.exp(-0.5 * z * z) / math.sqrt(2 * math.PI);
  if (z >= 3) return phi / tailFraction(z);
  // Abramowitz & Stegun 26.2.17 (absolute error < 7.5e-8)
  const t = 1 / (1 + 0.2316419 * z);
  const poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return phi * poly;
}

/** phi(z) / Q(z) for z >= 3: the continued fraction z + 1/(z + 2/(z + ...)), 60 terms. */
function tailFraction(z: number): number {
  let f = z;
  for (let k = 60; k >= 1; k--) f = z + k / f;
  return f;
}

const LOG_SQRT_2PI = 0.5 * math.log(2 * math.PI);

/** log Q(z), finite far past where Q(z) itself underflows (a strong mark scores z = 40 and more). */
export function logNormalTail(z: number): number {
  if (z < 3) return math.log(normalTail(z));
  return -0.5 * z * z - LOG_SQRT_2PI - math.log(tailFraction(z));
}

/** The z with log Q(z) = logP (bisection; logP <= 0). */
export function zOfLogTail(logP: number): number {
  let lo = -40;
  let hi = math.sqrt(math.max(0, -2 * logP)) + 2;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (logNormalTail(mid) > logP) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The smallest z whose bound with `candidates` candidates is at most `level` (bisection on the tail). */
export function accusationThreshold(candidates: number, level: number): number {
  const target = level / (math.max(1, candidates) * MAX_ROUNDS);
  let lo = 0;
  let hi = 40;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (normalTail(mid) > target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The ±1 code word of a payload (+1 where the coded bit is 1: the sign the decoder's soft values take). */
export function codeSigns(payload: bigint, key: WatermarkKey): Int8Array {
  const coded = convEncode(infoBits(payload, key));
  const s = new Int8Array(CODED_BITS);
  for (let i = 0; i < CODED_BITS; i++) s[i] = coded[i] ? 1 : -1;
  return s;
}

/** First coded bit that is pseudo-random for this payload's recipient (see the module comment). */
export function firstTracedBit(payload: bigint): number {
  return isScrambledPayload(payload) ? 3 : PAYLOAD_BITS * 3;
}

/** What every test needs of the observations over a candidate's coded bits T_j (from a given bit on). */
interface ObservationStats {
  norms: number[];
  rho: number;
  sumNorm: number;
  /** Whether the two layers are tested jointly (X_j). */
  joint: boolean;
  /** The estimate's norm (0: no third test). */
  estimateNorm: number;
  /** Tests made per candidate (each held to this share of the level; 1: the sum alone, z = S_j). */
  tests: number;
}

/**
 * One observation vector per layer and, when there is one, the joint least-squares estimate (accused code words
 * projected out of each), and what the tests need of them over each candidate's coded bits T_j (from `from` on): the
 * norms, the layers' correlation, the sum's norm.
 */
class Observations {
  private readonly stats = new Map<number, ObservationStats>();

  constructor(
    readonly layers: Float64Array[],
    readonly estimate: Float64Array | null = null,
  ) {}

  private statsFrom(from: number): ObservationStats {
    let st = this.stats.get(from);
    if (!st) {
      const L = this.layers.length;
      const normFrom = (w: Float64Array): number => {
        let sq = 0;
        for (let i = from; i < CODED_BITS; i++) sq += w[i] * w[i];
        return math.sqrt(sq);
      };
      const norms = this.layers.map(normFrom);
      let sumSq = 0;
      let cross = 0;
      for (let i = from; i < CODED_BITS; i++) {
        let t = 0;
        for (let l = 0; l < L; l++) t += this.layers[l][i];
        sumSq += t * t;
        if (L === 2) cross += this.layers[0][i] * this.layers[1][i];
      }
      const rho = L === 2 && norms[0] > 0 && norms[1] > 0 ? cross / (norms[0] * norms[1]) : 0;
      // The joint test needs two observed layers that are not the same observation twice, the third an estimate that
      // is not zero (each depends on the observations only, never on the candidate: the Bonferroni split stays valid).
      const joint = L === 2 && norms[0] > 0 && norms[1] > 0 && 1 - rho * rho > 1e-6;
      const estimateNorm = this.estimate ? normFrom(this.estimate) : 0;
      const tests = 1 + (joint ? 1 : 0) + (estimateNorm > 0 ? 1 : 0);
      st = { norms, rho, sumNorm: math.sqrt(sumSq), joint, estimateNorm, tests };
      this.stats.set(from, st);
    }
    return st;
  }

  /**
   * The candidate's p-value as `logP` = log p_j (see the module comment), the sum's correlation S_j / sqrt(|T_j|),
   * and S_j; `zOf` turns it into the score z (only for the few candidates reported: it inverts the tail).
   */
  score(c: Int8Array, from: number): CandidateScore {
    const st = this.statsFrom(from);
    const L = this.layers.length;
    let d0 = 0;
    let d1 = 0;
    const w0 = this.layers[0];
    if (L === 2) {
      const w1 = this.layers[1];
      for (let i = from; i < CODED_BITS; i++) {
        d0 += w0[i] * c[i];
        d1 += w1[i] * c[i];
      }
    } else {
      for (let l = 0; l < L; l++) {
        const w = this.layers[l];
        for (let i = from; i < CODED_BITS; i++) d0 += w[i] * c[i];
      }
    }
    const sum = st.sumNorm > 0 ? (d0 + d1) / st.sumNorm : 0;
    const corr = sum / math.sqrt(CODED_BITS - from);
    if (st.tests === 1) return { logP: logNormalTail(sum), corr, sum, tests: 1 };
    const share = math.log(st.tests);
    let logP = math.min(0, share + logNormalTail(sum));
    if (st.joint && sum > 0) {
      const s0 = d0 / st.norms[0];
      const s1 = d1 / st.norms[1];
      const x = (s0 * s0 - 2 * st.rho * s0 * s1 + s1 * s1) / (1 - st.rho * st.rho);
      // tests x P(X_j > x and S_j > 0) = tests x exp(-x / 2) / 2
      logP = math.min(logP, share - math.LN2 - 0.5 * x);
    }
    const u = this.estimate;
    if (u && st.estimateNorm > 0) {
      let du = 0;
      for (let i = from; i < CODED_BITS; i++) du += u[i] * c[i];
      logP = math.min(logP, share + logNormalTail(du / st.estimateNorm));
    }
    return { logP, corr, sum, tests: st.tests };
  }
}

interface CandidateScore {
  logP: number;
  corr: number;
  sum: number;
  /** Tests made (1: the sum alone, at the whole level: z = S_j). */
  tests: number;
}

/** The score z of a candidate: Q(z) = p_j. */
function zOf(s: CandidateScore): number {
  return s.tests > 1 ? zOfLogTail(s.logP) : s.sum;
}

/** Orthonormal basis of the accused code words (Gram-Schmidt), to project them out of observation vectors. */
class Projector {
  private readonly basis: Float64Array[] = [];

  add(code: Int8Array): void {
    const q = Float64Array.from(code);
    for (const b of this.basis) {
      let d = 0;
      for (let i = 0; i < CODED_BITS; i++) d += q[i] * b[i];
      for (let i = 0; i < CODED_BITS; i++) q[i] -= d * b[i];
    }
    let norm = 0;
    for (let i = 0; i < CODED_BITS; i++) norm += q[i] * q[i];
    norm = math.sqrt(norm);
    if (norm < 1e-9) return;
    for (let i = 0; i < CODED_BITS; i++) q[i] /= norm;
    this.basis.push(q);
  }

  /** w with every accused code word projected out (in place). */
  apply(w: Float64Array): Float64Array {
    for (const b of this.basis) {
      let d = 0;
      for (let i = 0; i < CODED_BITS; i++) d += w[i] * b[i];
      for (let i = 0; i < CODED_BITS; i++) w[i] -= d * b[i];
    }
    return w;
  }
}

/**
 * Tests every candidate (64-bit payloads issued on this original) against the registered observations; accuses
 * one recipient per round while the strongest remaining score's bound is at most `level`.
 *
 * Two phases share the MAX_ROUNDS rounds (so the Bonferroni factor is unchanged): rounds on the whole picture, then,
 * when those stop and per-cell statistics are available, rounds on the regions that no accused recipient's mark
 * explains (a region where every accused z is below REGION_EXPLAINED_Z). A recipient who supplied a few tiles of a
 * splice is weak in the whole picture (the other regions only add noise) but clear in its own. Which regions are
 * kept depends on the accused code words and the observations only, never on the candidate tested, so the null
 * argument above holds for those rounds too.
 */
export function traceColluders(input: TraceInput, candidates: readonly bigint[], key: WatermarkKey, level: number): ColluderTrace {
  const unique = [...new Set(candidates)];
  const n = unique.length;
  const threshold = accusationThreshold(n, level);
  const signs = unique.map((p) => codeSigns(p, key));
  const from = unique.map(firstTracedBit);
  const accusedIdx: number[] = [];
  const accused: AccusedRecipient[] = [];
  const projector = new Projector();
  let rounds = 0;
  let bestInnocentZ = 0;
  // rounds on one observation (a vector per layer, and the estimate on the whole picture) until nothing more is
  // accused; true when something was
  const search = (observed: Float64Array[], estimate: Float64Array | null): boolean => {
    const layers = observed.map((w) => projector.apply(new Float64Array(w)));
    const u = estimate && projector.apply(new Float64Array(estimate));
    let found = false;
    while (rounds < MAX_ROUNDS && accused.length < n) {
      rounds++;
      const obs = new Observations(layers, u);
      let best = -1;
      let bestScore: CandidateScore | null = null;
      for (let j = 0; j < n; j++) {
        if (accusedIdx.includes(j)) continue;
        const s = obs.score(signs[j], from[j]);
        if (!bestScore || s.logP < bestScore.logP || (s.logP === bestScore.logP && s.sum > bestScore.sum)) {
          bestScore = s;
          best = j;
        }
      }
      const bestZ = bestScore ? zOf(bestScore) : -Infinity;
      if (!bestScore || !(bestZ >= threshold)) {
        bestInnocentZ = math.max(bestInnocentZ, bestZ, 0);
        return found;
      }
      found = true;
      accusedIdx.push(best);
      accused.push({ payload: unique[best], z: bestZ, bound: math.min(1, n * MAX_ROUNDS * math.exp(bestScore.logP)), correlation: math.max(0, bestScore.corr), regionShare: null });
      projector.add(signs[best]);
      for (const w of layers) projector.apply(w);
      if (u) projector.apply(u);
    }
    return found;
  };
  // bestInnocentZ: the largest score of a round that accused nobody (each phase ends with one)
  search(input.zs, input.estimate ?? null);
  while (input.cells && accused.length > 0 && accused.length < n && rounds < MAX_ROUNDS) {
    const rest = unexplainedObservations(input.cells, accusedIdx.map((j) => signs[j]));
    // (the estimate is of the whole picture: these rounds test the layers only)
    if (!rest || !search(rest, null)) break;
  }
  if (accused.length === n) bestInnocentZ = 0;
  let mixing: MixingKind | null = null;
  if (accused.length >= 2) {
    const regions = input.cells ? regionShares(input.cells, accusedIdx.map((j) => signs[j])) : null;
    if (regions) {
      regions.shares.forEach((sh, i) => (accused[i].regionShare = sh));
      mixing = regions.kind;
    } else mixing = 'undetermined';
  }
  return { candidatesTested: n, accused, threshold, level, mixing, bestInnocentZ };
}

/** Regions per side of the second phase: finer than the mixing analysis, so a spliced tile is not lost in a larger region. */
const UNEXPLAINED_GRID = 12;
/** A region whose strongest accused mark reaches this z is explained by the accused. */
const REGION_EXPLAINED_Z = 2;

/**
 * Per-coded-bit z-scores (one vector per layer) of the cells in the regions no accused mark explains; null when every
 * region is explained or none is (then the whole-picture rounds already saw the same thing).
 */
function unexplainedObservations(cells: TraceCells, codes: Int8Array[]): Float64Array[] | null {
  const G = UNEXPLAINED_GRID;
  const k = codes.length;
  const { num, den } = regionSums(cells, codes, G);
  const keep = new Uint8Array(G * G);
  let kept = 0;
  let any = 0;
  for (let b = 0; b < G * G; b++) {
    if (!(den[b] > 0)) continue;
    any++;
    const sd = math.sqrt(den[b]);
    let top = 0;
    for (let j = 0; j < k; j++) top = math.max(top, num[b * k + j] / sd);
    if (top < REGION_EXPLAINED_Z) {
      keep[b] = 1;
      kept++;
    }
  }
  if (kept === 0 || kept === any) return null;
  return cells.layers.map((layer, l) => {
    const { nx, ny, chip, bit } = layer;
    const amp = cells.amps[l];
    const e = cells.e[l];
    const v = cells.v[l];
    const soft = new Float64Array(CODED_BITS);
    const vr = new Float64Array(CODED_BITS);
    for (let y = 0; y < ny; y++) {
      const by = math.min(G - 1, math.floor((y * G) / ny));
      for (let x = 0; x < nx; x++) {
        const c = y * nx + x;
        if (!(v[c] > 0) || !keep[by * G + math.min(G - 1, math.floor((x * G) / nx))]) continue;
        const a = amp[c];
        soft[bit[c]] += (a * chip[c] * e[c]) / v[c];
        vr[bit[c]] += (a * a) / v[c];
      }
    }
    const w = new Float64Array(CODED_BITS);
    for (let i = 0; i < CODED_BITS; i++) if (vr[i] > 0) w[i] = soft[i] / math.sqrt(vr[i]);
    return w;
  });
}

/** Regions (a G x G grid over the picture) per side. */
const REGION_GRID = 6;
/** Per region and accused recipient: the matched-filter sum of that recipient's mark, and the region's variance sum. */
function regionSums(cells: TraceCells, codes: Int8Array[], G = REGION_GRID): { num: Float64Array; den: Float64Array } {
  const k = codes.length;
  const num = new Float64Array(G * G * k);
  const den = new Float64Array(G * G);
  cells.layers.forEach((layer, l) => {
    const { nx, ny, chip, bit } = layer;
    const amp = cells.amps[l];
    const e = cells.e[l];
    const v = cells.v[l];
    for (let y = 0; y < ny; y++) {
      const by = math.min(G - 1, math.floor((y * G) / ny));
      for (let x = 0; x < nx; x++) {
        const c = y * nx + x;
        if (!(v[c] > 0)) continue;
        const b = by * G + math.min(G - 1, math.floor((x * G) / nx));
        const a = amp[c];
        const t = (a * chip[c] * e[c]) / v[c];
        den[b] += (a * a) / v[c];
        for (let j = 0; j < k; j++) num[b * k + j] += t * codes[j][bit[c]];
      }
    }
  });
  return { num, den };
}

/** A region takes part in the mixing analysis when some accused recipient's mark reaches this z there. */
const REGION_MIN_Z = 4;

/**
 * Which accused recipient's mark each region carries: per region and recipient, the matched-filter z of that
 * recipient's mark over the region's cells (both layers). Averaging (or a median) leaves every accused mark in every
 * region, so the strongest takes about 1/k of the positive scores; splicing by region leaves one per region, so the
 * strongest takes nearly all. The mean share of the strongest decides: above halfway between 1/k and 1, splicing.
 */
function regionShares(cells: TraceCells, codes: Int8Array[]): { kind: MixingKind; shares: number[] } | null {
  const k = codes.length;
  const G = REGION_GRID;
  const { num, den } = regionSums(cells, codes);
  const tops = new Array<number>(k).fill(0);
  let used = 0;
  let shareSum = 0;
  for (let b = 0; b < G * G; b++) {
    if (!(den[b] > 0)) continue;
    const sd = math.sqrt(den[b]);
    let top = -1;
    let topZ = 0;
    let pos = 0;
    for (let j = 0; j < k; j++) {
      const z = num[b * k + j] / sd;
      if (z > 0) pos += z;
      if (z > topZ) {
        topZ = z;
        top = j;
      }
    }
    if (top < 0 || topZ < REGION_MIN_Z) continue;
    used++;
    shareSum += topZ / pos;
    tops[top]++;
  }
  if (used < 3) return null;
  const mean = shareSum / used;
  const kind: MixingKind = mean >= (1 + 1 / k) / 2 ? 'region-splicing' : 'averaging';
  return { kind, shares: tops.map((t) => math.round((t / used) * 100) / 100) };
}

/**
 * Scores of payloads that were never issued (decoys) against the observations with `accused` projected out, as
 * traceColluders computes them: the measured null of the statistic (benchmark; unit tests). With one layer these are
 * S_j, standard normal; with two layers or the estimate, the z of p_j, whose upper tail is at most the normal's
 * (P(z > t) <= Q(t): each test at its share of the level; a candidate whose p-value is 1, as every one with S_j < 0
 * without the estimate, scores the floor -40). `statistic: 'sum'`: S_j
 * itself, standard normal with one layer or two. `unexplained`: on the regions no accused mark explains (the second
 * phase; empty when there are none).
 */
export function nullScores(
  input: TraceInput,
  accused: readonly bigint[],
  decoys: readonly bigint[],
  key: WatermarkKey,
  unexplained = false,
  statistic: 'score' | 'sum' = 'score',
): Float64Array {
  // the regions no accused mark explains (the second phase's observations), when asked and there are some
  const rest = unexplained && input.cells && accused.length ? unexplainedObservations(input.cells, accused.map((p) => codeSigns(p, key))) : null;
  if (unexplained && !rest) return new Float64Array(0);
  const projector = new Projector();
  for (const p of accused) projector.add(codeSigns(p, key));
  const estimate = !rest && input.estimate ? projector.apply(new Float64Array(input.estimate)) : null;
  const obs = new Observations((rest ?? input.zs).map((w) => projector.apply(new Float64Array(w))), estimate);
  return Float64Array.from(decoys, (p) => {
    const sc = obs.score(codeSigns(p, key), firstTracedBit(p));
    return statistic === 'sum' ? sc.sum : zOf(sc);
  });
}
