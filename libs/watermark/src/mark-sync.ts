/**
 * The registration polished on the mark itself. The image registration aligns what the picture shows; where it
 * shows little (a small subject on a black frame or a flat night sky, a low-key grade), a geometry right on the
 * subject can be several cells off across the flat rest, and the alignment NCC does not see it (0.98–0.996 on such
 * copies, 10–23 px off at their corners). The mark covers the flat parts too: the cells' coherent excess (per coded
 * bit, the squared sum over the cells carrying it, with their chips, minus the sum of the squares) is largest where
 * the cells sit on the mark, and about 0 at any geometry without it, whatever the residual and the payload. (The
 * plain mean squared z-score was tried first: host residual made it 100–300 on copies that do not decode.)
 *
 * Only the geometry changes: one registration is still decoded, chosen by a statistic that does not depend on any
 * code word, so the number of code words tested, and the false-match bound, are unchanged.
 */
import { cellObservations } from './cell-decode';
import { applyH, Homography } from './image';
import { Layer } from './pattern';
import { CODED_BITS } from './payload';
import { homographyFromCorners } from './register';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** The pattern as the extractor rebuilt it for one original: its layers and their relative amplitudes. */
export interface MarkGrid {
  layers: Layer[];
  amps: Float32Array[];
  /** the original's size in the working pixels H maps to */
  width: number;
  height: number;
}

/**
 * Where the inspected pixels land on the pattern under H (normalised original coordinates, as the decoding's): every
 * `stride`-th pixel of every `stride`-th row.
 */
export function cellPositions(H: Homography, iw: number, ih: number, ow: number, oh: number, stride = 1): { qx: Float32Array; qy: Float32Array } {
  const sw = math.ceil(iw / stride);
  const sh = math.ceil(ih / stride);
  const qx = new Float32Array(sw * sh);
  const qy = new Float32Array(sw * sh);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const [a, b] = applyH(H, x * stride, y * stride);
      qx[y * sw + x] = (a + 0.5) / ow;
      qy[y * sw + x] = (b + 0.5) / oh;
    }
  }
  return { qx, qy };
}

/** The same pixels of a plane as cellPositions takes with this stride. */
function subsample(r: Float32Array, iw: number, ih: number, stride: number): Float32Array {
  if (stride === 1) return r;
  const sw = math.ceil(iw / stride);
  const sh = math.ceil(ih / stride);
  const out = new Float32Array(sw * sh);
  for (let y = 0; y < sh; y++) for (let x = 0; x < sw; x++) out[y * sw + x] = r[y * stride * iw + x * stride];
  return out;
}

/** The climb scores about this many pixels at most (every second or third pixel of a large copy, each way). */
const CLIMB_PIXELS = 1 << 16;

/**
 * How far the cells' estimates agree with the chips within each coded bit: the bits' squared sums over their cells
 * (the z-scores squared) against the sums of their squares, both over both layers. Their ratio is about 1, and their
 * difference (the excess) about 0, wherever no mark is aligned, however large the residual the picture leaves (the
 * chips are random signs, so a residual independent of them adds the same to both). The ratio also grows with the
 * cells per bit a geometry covers, so the climb follows the excess, whose expectation is the mark's alone.
 */
export function markEnergy(grid: MarkGrid, qx: Float32Array, qy: Float32Array, r: Float32Array, nullTrials = 0): MarkExcess {
  const obs = grid.layers.map((layer) => cellObservations(layer, qx, qy, r));
  return cellExcess(
    grid,
    obs.map((o) => o.e),
    obs.map((o) => o.v),
    nullTrials,
  );
}

/** markEnergy's figures, and how many cells of the fine layer were observed. */
export interface MarkExcess {
  ratio: number;
  excess: number;
  /** the spread of the excess with the chips replaced by random signs (0 without null trials) */
  nullSpread: number;
  fineCells: number;
}

/** markEnergy from the cells' estimates and variances the decoding computed (cellObservations). */
export function cellExcess(grid: MarkGrid, es: Float32Array[], vs: Float32Array[], nullTrials = 0): MarkExcess {
  let coherent = 0;
  let incoherent = 0;
  let fineCells = 0;
  const nullExcess = new Float64Array(nullTrials);
  grid.layers.forEach((layer, l) => {
    const e = es[l];
    const v = vs[l];
    const amp = grid.amps[l];
    const soft = new Float64Array(CODED_BITS);
    const squares = new Float64Array(CODED_BITS);
    const vr = new Float64Array(CODED_BITS);
    const cells: number[] = [];
    for (let c = 0; c < e.length; c++) {
      if (!(v[c] > 0)) continue;
      cells.push(c);
      const t = (amp[c] * layer.chip[c] * e[c]) / v[c];
      const b = layer.bit[c];
      soft[b] += t;
      squares[b] += t * t;
      vr[b] += (amp[c] * amp[c]) / v[c];
    }
    if (l === 0) fineCells = cells.length;
    for (let i = 0; i < CODED_BITS; i++) {
      if (!(vr[i] > 0)) continue;
      coherent += (soft[i] * soft[i]) / vr[i];
      incoherent += squares[i] / vr[i];
    }
    // the same cells with their chips replaced by other random signs: what the excess is without a mark
    let state = 0x9e3779b9 ^ l;
    for (let t = 0; t < nullTrials; t++) {
      soft.fill(0);
      for (const c of cells) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        const sign = state & 1 ? 1 : -1;
        soft[layer.bit[c]] += (sign * amp[c] * e[c]) / v[c];
      }
      let x = 0;
      for (let i = 0; i < CODED_BITS; i++) if (vr[i] > 0) x += (soft[i] * soft[i] - squares[i]) / vr[i];
      nullExcess[t] += x;
    }
  });
  let spread = 0;
  for (const x of nullExcess) spread += x * x;
  return {
    ratio: incoherent > 0 ? coherent / incoherent : 0,
    excess: coherent - incoherent,
    nullSpread: nullTrials ? math.sqrt(spread / nullTrials) : 0,
    fineCells,
  };
}

/**
 * The climb needs this many observed cells of the fine layer per coded bit: the excess sums products of cells that
 * carry the same bit, and with one cell or less per bit (a 3 % crop of a 451 x 300 photo: 260 fine cells) it rests
 * on a few pairs, whose best of a few hundred geometries passed the acceptance below and lost 4 of 5 copies.
 */
const MIN_CELLS_PER_BIT = 4;

/**
 * At or above this ratio the registration is left as it is: the mark already stands out (copies decoded at a soft
 * agreement of 0.8 and more read 1.6–3.8), and the climb would only cost time.
 */
export const MARK_SYNC_BELOW = 1.5;

/** The climb's first step (working pixels, one fine cell) and its last. */
const FIRST_STEP = 4;
const LAST_STEP = 0.25;

/** At most this many energies per climb (each is one projection of the residual on both layers). */
const MAX_EVALUATIONS = 240;

/**
 * A polished geometry replaces the registration when its excess is higher by this many spreads of the excess
 * without a mark (the same cells with other random chips): the climb takes the best of a few hundred noisy values,
 * and on the replayed copies a gain of 1.3 spreads went with a worse decoding, 4.3 with a copy recovered.
 */
const MARK_SYNC_SPREADS = 4;

/** The climb starts only from a registration where the mark's excess is at least this many spreads. */
const MARK_EVIDENT = 2;

/** Chip draws for the spread of the excess without a mark. */
const NULL_TRIALS = 32;

/**
 * Coordinate ascent of the mark's excess over where the inspected image's corners land in the original: each corner
 * along each axis, the four together (a translation) and their spread about the centre (a scale), with a step that
 * halves from one fine cell to a quarter pixel. `r` is the residual the decoding projects (inspected minus the
 * predicted original, matched-filtered); it is computed once at the registration found, which is close enough where
 * the picture has content and does not matter where it is flat. Returns the geometry found when it is clearly
 * better, else null (also when the mark already stands out: MARK_SYNC_BELOW).
 */
export function polishOnMark(
  H: Homography,
  iw: number,
  ih: number,
  grid: MarkGrid,
  r: Float32Array,
  observed: { e: Float32Array[]; v: Float32Array[] },
): Homography | null {
  const p = [[0, 0], [iw - 1, 0], [iw - 1, ih - 1], [0, ih - 1]];
  const excessAt = (G: Homography, stride: number, rs: Float32Array): MarkExcess => {
    const { qx, qy } = cellPositions(G, iw, ih, grid.width, grid.height, stride);
    return markEnergy(grid, qx, qy, rs);
  };
  // from the cells the decoding observed at H: nothing more to compute when the climb does not start
  const quick = cellExcess(grid, observed.e, observed.v);
  if (!(quick.ratio < MARK_SYNC_BELOW) || quick.fineCells < MIN_CELLS_PER_BIT * CODED_BITS) return null;
  const first = cellExcess(grid, observed.e, observed.v, NULL_TRIALS);
  // nothing to climb on where no mark shows at all (an unmarked picture: the excess is then about 0 ± 1 spread)
  if (!(first.excess >= MARK_EVIDENT * first.nullSpread)) return null;
  let q: number[][] = p.map(([x, y]) => applyH(H, x, y));
  // the climb on a subsample of a large copy (its cells are still covered by several pixels each); the gain is judged
  // on every pixel
  const stride = math.max(1, math.floor(math.sqrt((iw * ih) / CLIMB_PIXELS)));
  const rs = subsample(r, iw, ih, stride);
  let best = { H, excess: stride === 1 ? first.excess : excessAt(H, stride, rs).excess };
  let evaluations = 1;
  const moves = (step: number): number[][][] => {
    const out: number[][][] = [];
    for (const sgn of [1, -1]) {
      for (let c = 0; c < 4; c++) {
        out.push(q.map(([u, v], k) => (k === c ? [u + sgn * step, v] : [u, v])));
        out.push(q.map(([u, v], k) => (k === c ? [u, v + sgn * step] : [u, v])));
      }
      out.push(q.map(([u, v]) => [u + sgn * step, v]));
      out.push(q.map(([u, v]) => [u, v + sgn * step]));
      // the corners spread from (or drawn towards) their centre by `step`
      const cu = (q[0][0] + q[1][0] + q[2][0] + q[3][0]) / 4;
      const cv = (q[0][1] + q[1][1] + q[2][1] + q[3][1]) / 4;
      out.push(
        q.map(([u, v]) => {
          const d = math.hypot(u - cu, v - cv) || 1;
          return [u + (sgn * step * (u - cu)) / d, v + (sgn * step * (v - cv)) / d];
        }),
      );
    }
    return out;
  };
  for (let step = FIRST_STEP; step >= LAST_STEP && evaluations < MAX_EVALUATIONS; step /= 2) {
    let improved = true;
    while (improved && evaluations < MAX_EVALUATIONS) {
      improved = false;
      for (const moved of moves(step)) {
        if (evaluations >= MAX_EVALUATIONS) break;
        const G = homographyFromCorners(p, moved);
        if (!G) continue;
        const { excess } = excessAt(G, stride, rs);
        evaluations++;
        if (excess > best.excess) {
          best = { H: G, excess };
          q = moved;
          improved = true;
          break;
        }
      }
    }
  }
  if (best.H === H) return null;
  const found = stride === 1 ? best.excess : excessAt(best.H, 1, r).excess;
  return found - first.excess >= MARK_SYNC_SPREADS * first.nullSpread ? best.H : null;
}

/**
 * Not on copies reduced more than this (original working pixels per inspected pixel): a fine cell is then under
 * 1.3 inspected pixels, each cell's variance comes from a pixel or two, and the excess no longer tells the mark's
 * geometry (a 75 px copy of the low-key photo: a gain of 5 spreads with the decoding worse).
 */
export const MARK_SYNC_MAX_SCALE = 3;
