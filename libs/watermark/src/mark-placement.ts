/**
 * Where an unresized crop sits in the original, found on the mark alone. A crop that shows none of the picture (a
 * part of a black frame, a flat sky, a blank margin) gives the image registration nothing to align: the black
 * frame's strong two-step crop registered at NCC 0.22, 545 px from where it was cut, although its mark read 294 of
 * 330 coded bits right at the true place. The mark covers flat parts too, so the crop's place is searched on the
 * mark's coherent excess (mark-sync.ts): per coded bit, the squared sum of the cells' estimates with their chips
 * minus the sum of their squares, about 0 wherever no mark is aligned, whatever the residual and the payload.
 *
 * The search assumes the copy was not resized (its scale is the working scales' ratio) and tries every translation:
 * every fine-cell shift at two phases a half cell apart on each axis, on box cell sums of the copy's residual (the
 * copy minus its local mean: a flat crop has no picture to subtract). The best few are scored again on the
 * decoding's bilinear cells, a quarter cell either way, and the best is kept when its excess stands clearly above
 * the excess of the same cells with random chips, and above the registration's.
 *
 * What it cannot do: a crop that was also resized (one scale is searched), or one whose texture outweighs its mark
 * in the box sums (the picture is not subtracted here; such a copy usually registers on its content instead).
 *
 * Like mark-sync, it chooses a geometry with a statistic that depends on no code word, and its geometry replaces the
 * registration's (one registered decoding is still done), so the number of code words tested and the false-match
 * bound are unchanged.
 */
import { LumaPlane } from './codec';
import { clipResidual, Homography, subtractLocalMean } from './image';
import { cellPositions, markEnergy, MarkGrid } from './mark-sync';
import { amplitudeMaps, buildLayers, cellActivity, gridDims } from './pattern';
import { CODED_BITS } from './payload';
import { DEBIAS_CELLS } from './registered-decode';
import { smoothCells } from './cell-decode';
import { WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** The search runs only when the registration's alignment NCC is under this: it found nothing of the picture. */
export const PLACEMENT_BELOW_NCC = 0.5;

/** Phases tried per axis within a fine cell (at most a quarter cell off; the best few are refined below). */
const PHASES = 2;

/**
 * Box-cell terms per search at most (phases x shifts x copy cells); a larger search is not made. A guard only: the
 * grid has about 25,600 fine cells whatever the original's size, which keeps any search under about 1.7e8.
 */
const MAX_WORK = 6e8;

/** Placements scored again on the bilinear cells. */
const REFINED = 8;

/**
 * The best placement is kept when its excess is at least this many spreads of the excess with random chips. The
 * search takes the best of up to a few hundred thousand placements, so this is set well above their best without
 * an aligned mark: 4.9 at most on 56 crops searched on another photo's pattern, 5.7 on 20 crops of the unmarked
 * photos themselves (their texture is not subtracted here); the black frame's flat crop reads 10.7.
 */
export const PLACEMENT_SPREADS = 8;

/** The placement replaces the registration only when its excess is higher than the registration's by this many spreads. */
const KEEP_REGISTERED_SPREADS = 4;

/** Chip draws for the spread of the excess without a mark. */
const NULL_TRIALS = 32;

/**
 * The copy's residual as registered decoding would see it without a picture to subtract: saturated pixels left out,
 * the local mean taken off over the decoding's window, outliers clipped.
 */
function flatResidual(I: LumaPlane, radius: number): Float32Array {
  const r = new Float32Array(I.data.length);
  for (let k = 0; k < r.length; k++) {
    const v = I.data[k];
    r[k] = v > 0.5 && v < 254.5 ? v : num.NaN;
  }
  subtractLocalMean(r, I.width, I.height, radius);
  clipResidual(r);
  return r;
}

interface Candidate {
  excess: number;
  tx: number;
  ty: number;
}

/**
 * The translation that puts the inspected working pixels on the original's (H maps inspected to original working
 * pixels, scale `unresized`), or null when the copy is not smaller than the original, the search would be too large,
 * or no placement shows the mark clearly.
 */
export function placeOnMark(O: LumaPlane, I: LumaPlane, key: WatermarkKey, unresized: number, registered: Homography | null): Homography | null {
  const k = unresized;
  const dims = gridDims(O.fullWidth, O.fullHeight);
  const [nx, ny] = dims[0];
  const cw = O.width / nx;
  const ch = O.height / ny;
  const iw = I.width;
  const ih = I.height;
  // the copy's extent in fine cells (one more for the phase); it must fit in the grid
  const mx = math.ceil((iw * k) / cw) + 1;
  const my = math.ceil((ih * k) / ch) + 1;
  if (mx > nx || my > ny) return null;
  const shifts = (nx - mx + 1) * (ny - my + 1);
  if (PHASES * PHASES * shifts * mx * my > MAX_WORK) return null;
  const layers = buildLayers(key, dims);
  const amps = amplitudeMaps(cellActivity(O.data, O.width, O.height, nx, ny, 1), dims);
  const { chip, bit } = layers[0];
  const amp = amps[0];
  const r = flatResidual(I, math.max(2, math.round((DEBIAS_CELLS * cw) / k)));
  // a minimum of covered pixels for a box cell to count (half a cell)
  const minCount = (0.5 * cw * ch) / (k * k);
  const top: Candidate[] = [];
  const sums = new Float64Array(mx * my);
  const counts = new Float64Array(mx * my);
  const squares = new Float64Array(mx * my);
  const local = new Float32Array(mx * my);
  const soft = new Float64Array(CODED_BITS);
  const sq = new Float64Array(CODED_BITS);
  const vr = new Float64Array(CODED_BITS);
  const colOf = new Int32Array(iw);
  for (let py = 0; py < PHASES; py++) {
    for (let px = 0; px < PHASES; px++) {
      const phx = ((px + 0.5) * cw) / PHASES;
      const phy = ((py + 0.5) * ch) / PHASES;
      for (let x = 0; x < iw; x++) colOf[x] = math.floor((k * (x + 0.5) + phx) / cw);
      sums.fill(0);
      counts.fill(0);
      squares.fill(0);
      for (let y = 0; y < ih; y++) {
        const row = math.floor((k * (y + 0.5) + phy) / ch) * mx;
        for (let x = 0; x < iw; x++) {
          const v = r[y * iw + x];
          if (v !== v) continue;
          const c = row + colOf[x];
          sums[c] += v;
          counts[c] += 1;
          squares[c] += v * v;
        }
      }
      // each box cell's estimate and its variance (the local residual variance over 3 x 3 cells, as the decoding's)
      local.fill(-1);
      for (let c = 0; c < local.length; c++) {
        if (counts[c] < minCount) continue;
        const e = sums[c] / counts[c];
        local[c] = math.max(0, squares[c] / counts[c] - e * e);
      }
      const sm = smoothCells(local, mx, my, 1);
      let count = 0;
      for (let c = 0; c < local.length; c++) if (local[c] >= 0 && sm[c] >= 0) count++;
      if (count === 0) continue;
      // per observed box cell: its offset in the grid from the shift's corner, estimate / variance, 1 / variance
      const off = new Int32Array(count);
      const ev = new Float64Array(count);
      const iv = new Float64Array(count);
      for (let c = 0, i = 0; c < local.length; c++) {
        if (local[c] < 0 || sm[c] < 0) continue;
        const v = (sm[c] + 0.25) / counts[c];
        off[i] = math.floor(c / mx) * nx + (c % mx);
        ev[i] = sums[c] / counts[c] / v;
        iv[i] = 1 / v;
        i++;
      }
      for (let V = 0; V + my <= ny; V++) {
        for (let U = 0; U + mx <= nx; U++) {
          soft.fill(0);
          sq.fill(0);
          vr.fill(0);
          const base = V * nx + U;
          for (let i = 0; i < count; i++) {
            const g = base + off[i];
            const a = amp[g];
            const t = a * chip[g] * ev[i];
            const b = bit[g];
            soft[b] += t;
            sq[b] += t * t;
            vr[b] += a * a * iv[i];
          }
          let excess = 0;
          for (let b = 0; b < CODED_BITS; b++) if (vr[b] > 0) excess += (soft[b] * soft[b] - sq[b]) / vr[b];
          if (top.length < REFINED || excess > top[top.length - 1].excess) {
            // a copy pixel's centre x + 0.5 lies at k (x + 0.5) + phx + U cw in the original's pixel-edge
            // coordinates, so its index coordinate is k x + tx
            top.push({ excess, tx: U * cw + phx + (k - 1) / 2, ty: V * ch + phy + (k - 1) / 2 });
            top.sort((p, q) => q.excess - p.excess);
            if (top.length > REFINED) top.pop();
          }
        }
      }
    }
  }
  // the best few again on the decoding's bilinear cells, each within half a phase step either way
  const grid: MarkGrid = { layers, amps, width: O.width, height: O.height };
  const excessAt = (H: Homography, nullTrials = 0): { excess: number; nullSpread: number } => {
    const { qx, qy } = cellPositions(H, iw, ih, O.width, O.height);
    return markEnergy(grid, qx, qy, r, nullTrials);
  };
  let best: { H: Homography; excess: number } | null = null;
  for (const c of top) {
    for (const dy of [-1, 0, 1]) {
      for (const dx of [-1, 0, 1]) {
        const H = new Float64Array([k, 0, c.tx + (dx * cw) / (2 * PHASES), 0, k, c.ty + (dy * ch) / (2 * PHASES), 0, 0, 1]);
        const { excess } = excessAt(H);
        if (!best || excess > best.excess) best = { H, excess };
      }
    }
  }
  if (!best) return null;
  const { excess, nullSpread } = excessAt(best.H, NULL_TRIALS);
  if (!(nullSpread > 0) || excess < PLACEMENT_SPREADS * nullSpread) return null;
  // a registration with the mark as clear (a low-NCC one that is right, or a resized copy) is kept
  return !registered || excess - excessAt(registered).excess >= KEEP_REGISTERED_SPREADS * nullSpread ? best.H : null;
}
