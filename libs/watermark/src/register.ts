import { alignedSumsKernel, blockScoresKernel, nccSearchKernel } from './decode-kernel';
import { applyH, canvasFillRegion, fillWithEdge, growRegion, Homography, invertH, mulH, Plane, resize, sample, scaleH, solve, withFrame } from './image';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

export interface Registration {
  /** Maps inspected (working) pixel coordinates to original (working) pixel coordinates. */
  H: Homography;
  /** Normalised cross-correlation of the aligned overlap (0..1). */
  ncc: number;
  /**
   * The NCC before the polish. The polish climbs the alignment score of any geometry, a wrong one too (a wrong
   * candidate of the camera photo rose from below 0.95 to 0.968), so whether a registration is convincing enough
   * to skip the other searches is judged on this; the polished NCC only compares registrations.
   */
  raw: number;
}

function orientationHistogram(p: Plane, bins: number): Float64Array {
  const h = new Float64Array(bins);
  for (let y = 1; y < p.h - 1; y++) {
    for (let x = 1; x < p.w - 1; x++) {
      const i = y * p.w + x;
      const gx = p.d[i + 1] - p.d[i - 1];
      const gy = p.d[i + p.w] - p.d[i - p.w];
      const m = math.hypot(gx, gy);
      if (m < 4) continue;
      let a = math.atan2(gy, gx);
      if (a < 0) a += math.PI;
      h[math.min(bins - 1, math.floor((a / math.PI) * bins))] += m;
    }
  }
  // smooth
  const s = new Float64Array(bins);
  for (let i = 0; i < bins; i++) s[i] = 0.25 * h[(i + bins - 1) % bins] + 0.5 * h[i] + 0.25 * h[(i + 1) % bins];
  return s;
}

function zeroMean(h: Float64Array): Float64Array {
  let m = 0;
  for (const v of h) m += v;
  m /= h.length;
  let ss = 0;
  for (let i = 0; i < h.length; i++) {
    h[i] -= m;
    ss += h[i] * h[i];
  }
  const k = ss > 0 ? 1 / math.sqrt(ss) : 0;
  for (let i = 0; i < h.length; i++) h[i] *= k;
  return h;
}

/** A rotation hypothesis: the inspected image, mirrored left-right first when `mirror`, is rotated by `theta`. */
export interface Orientation {
  theta: number;
  mirror: boolean;
  /** Histogram correlation (higher first). */
  score: number;
}

/** The histogram of the left-right mirror image: gradient orientation a becomes pi - a. */
function mirrorHistogram(h: Float64Array): Float64Array {
  const m = new Float64Array(h.length);
  for (let i = 0; i < h.length; i++) m[i] = h[h.length - 1 - i];
  return m;
}

/**
 * Rotation candidates over the whole circle, plain and mirrored, from zero-mean gradient-orientation histograms.
 * Gradient orientations are defined modulo 180 degrees, so each histogram peak gives two angles (theta, theta + pi);
 * a vertical mirror is a horizontal one rotated by pi, so mirroring left-right covers both.
 */
export function rotationCandidates(O: Plane, I: Plane): Orientation[] {
  const bins = 90;
  const ho = zeroMean(orientationHistogram(O, bins));
  const hiPlain = zeroMean(orientationHistogram(I, bins));
  const out: Orientation[] = [
    { theta: 0, mirror: false, score: 2 },
    { theta: 0, mirror: true, score: -2 },
  ];
  for (const mirror of [false, true]) {
    const hi = mirror ? mirrorHistogram(hiPlain) : hiPlain;
    const v = new Float64Array(bins);
    for (let s = 0; s < bins; s++) for (let i = 0; i < bins; i++) v[s] += ho[i] * hi[(i + s) % bins];
    const peaks: number[] = [];
    for (let s = 0; s < bins; s++) if (v[s] > 0 && v[s] >= v[(s + bins - 1) % bins] && v[s] >= v[(s + 1) % bins]) peaks.push(s);
    peaks.sort((a, b) => v[b] - v[a]);
    for (const s of peaks.slice(0, 3)) {
      // refine by parabola
      const a = v[(s + bins - 1) % bins];
      const b = v[s];
      const c = v[(s + 1) % bins];
      const den = a - 2 * b + c;
      const off = den < 0 ? (0.5 * (a - c)) / den : 0;
      let ang = ((s + off) * math.PI) / bins;
      if (ang > math.PI / 2) ang -= math.PI;
      for (const t of [ang, ang > 0 ? ang - math.PI : ang + math.PI]) {
        const near = out.find((o) => o.mirror === mirror && math.abs(math.atan2(math.sin(o.theta - t), math.cos(o.theta - t))) < 0.02);
        if (near) near.score = math.max(near.score, b);
        else out.push({ theta: t, mirror, score: b });
      }
    }
  }
  // the identity first (most edits keep the geometry), then by histogram agreement
  return out.sort((p, q) => q.score - p.score);
}

interface Candidate {
  H: Homography;
  ncc: number;
  theta: number;
  mirror: boolean;
  /** Block-matching search radius (working pixels) for the first refinement pass. */
  search: number;
  /** Found with the inspected's filled canvas left out of the template (the second search, register). */
  masked?: boolean;
}

/** Per row of a mask, its first and last pixel not masked (−1: none), and how many are not masked. */
interface KeptRows {
  first: Int32Array;
  last: Int32Array;
  kept: number;
}

const keptRowsOf = new WeakMap<Uint8Array, KeptRows>();

/** A template search's mask is the same for its hundreds of placements tried: its rows are read once. */
function keptRows(skip: Uint8Array, w: number, h: number): KeptRows {
  let rows = keptRowsOf.get(skip);
  if (!rows) {
    const first = new Int32Array(h).fill(-1);
    const last = new Int32Array(h).fill(-1);
    let kept = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (skip[y * w + x]) continue;
        if (first[y] < 0) first[y] = x;
        last[y] = x;
        kept++;
      }
    }
    rows = { first, last, kept };
    keptRowsOf.set(skip, rows);
  }
  return rows;
}

/**
 * Masked NCC template search of the inspected (rotated/scaled into the original frame) over the original. With
 * `skip` (a mask of Ic), those pixels (a filled canvas) are left out of the template and its extent is that of the
 * pixels left.
 */
export function coarseSearch(Oc: Plane, Ic: Plane, theta: number, sx: number, sy: number, mirror = false, skip: Uint8Array | null = null): Candidate | null {
  const cos = math.cos(theta);
  const sin = math.sin(theta);
  const m = mirror ? -1 : 1;
  const cI = [(Ic.w - 1) / 2, (Ic.h - 1) / 2];
  // inspected -> template frame: t = D^-1 R(-theta) M (p - cI), M = diag(m, 1) mirrors left-right; the extent of the
  // corners (or of every pixel the mask keeps), without an array of points: with a mask that was one pair per pixel
  // and a spread of them all, a third of the search's time in garbage collection
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  const extend = (px: number, py: number): void => {
    const dx = m * (px - cI[0]);
    const dy = py - cI[1];
    const u = (cos * dx + sin * dy) / sx;
    const v = (-sin * dx + cos * dy) / sy;
    minX = math.min(minX, u);
    maxX = math.max(maxX, u);
    minY = math.min(minY, v);
    maxY = math.max(maxY, v);
  };
  if (skip) {
    // the extent of a linear map of the kept pixels is reached at a row's first or last kept pixel (the map's rounded
    // value is monotone along a row), so those two per row give the same extent as every pixel
    const rows = keptRows(skip, Ic.w, Ic.h);
    if (rows.kept < 30) return null;
    for (let y = 0; y < Ic.h; y++) {
      if (rows.first[y] < 0) continue;
      extend(rows.first[y], y);
      extend(rows.last[y], y);
    }
  } else {
    extend(0, 0);
    extend(Ic.w - 1, 0);
    extend(0, Ic.h - 1);
    extend(Ic.w - 1, Ic.h - 1);
  }
  const Tw = math.floor(maxX - minX) + 1;
  const Th = math.floor(maxY - minY) + 1;
  // a template larger than the original (rotation onto an expanded canvas) is cut to its centre, where the
  // original sits; far larger ones are wrong scale guesses
  if (Tw > 6 * Oc.w || Th > 6 * Oc.h || Tw < 6 || Th < 6) return null;
  const tw = math.min(Tw, Oc.w);
  const th = math.min(Th, Oc.h);
  const offs: number[] = [];
  const vals: number[] = [];
  const total = tw * th;
  const step = math.max(1, math.floor(math.sqrt(total / 2500)));
  for (let ty = 0; ty < th; ty += step) {
    for (let tx = 0; tx < tw; tx += step) {
      const ux = tx + minX + (Tw - tw) / 2;
      const uy = ty + minY + (Th - th) / 2;
      const px = cI[0] + m * (cos * sx * ux - sin * sy * uy);
      const py = cI[1] + sin * sx * ux + cos * sy * uy;
      if (px < 0 || py < 0 || px > Ic.w - 1 || py > Ic.h - 1) continue;
      if (skip && skip[math.round(py) * Ic.w + math.round(px)]) continue;
      offs.push(ty * Oc.w + tx);
      vals.push(sample(Ic, px, py));
    }
  }
  const n = offs.length;
  if (n < 30) return null;
  let mean = 0;
  for (const v of vals) mean += v;
  mean /= n;
  let ss = 0;
  const t = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    t[k] = vals[k] - mean;
    ss += t[k] * t[k];
  }
  if (ss < n * 1) return null;
  const norm = 1 / math.sqrt(ss);
  for (let k = 0; k < n; k++) t[k] *= norm;
  // every placement of the template scored in WebAssembly, four at a time (the scan was about two thirds of the
  // time of extracting a rotated copy)
  const { best, x: bx, y: by } = nccSearchKernel(Oc, tw, th, Int32Array.from(offs), t);
  // template pixel (tx,ty) sits at original (bx+tx, by+ty); template coordinate u = tx + minX + (Tw-tw)/2
  const ox = bx - minX - (Tw - tw) / 2;
  const oy = by - minY - (Th - th) / 2;
  // H: p -> q = (ox, oy) + D^-1 R(-theta) M (p - cI)
  const a = (m * cos) / sx;
  const b = sin / sx;
  const c = (-m * sin) / sy;
  const d = cos / sy;
  const H = Float64Array.from([a, b, ox - a * cI[0] - b * cI[1], c, d, oy - c * cI[0] - d * cI[1], 0, 0, 1]);
  return { H, ncc: best, theta, mirror, search: 0 };
}

interface Match {
  px: number;
  py: number;
  qx: number;
  qy: number;
  w: number;
}

/** Block matching of inspected patches (warped into the original frame) around their predicted positions. */
function blockMatches(O: Plane, I: Plane, H: Homography, R: number, S: number, grid: number): Match[] {
  const Hi = invertH(H);
  const out: Match[] = [];
  const size = 2 * R + 1;
  const patch = new Float64Array(size * size);
  const valid = new Uint8Array(size * size);
  for (let gy = 0; gy < grid; gy++) {
    for (let gx = 0; gx < grid; gx++) {
      const px = ((gx + 0.5) / grid) * (I.w - 1);
      const py = ((gy + 0.5) / grid) * (I.h - 1);
      const [qx, qy] = applyH(H, px, py);
      const cx = math.round(qx);
      const cy = math.round(qy);
      if (cx - R - S < 0 || cy - R - S < 0 || cx + R + S >= O.w || cy + R + S >= O.h) continue;
      let n = 0;
      let mean = 0;
      for (let b = -R; b <= R; b++) {
        for (let a = -R; a <= R; a++) {
          const [ix, iy] = applyH(Hi, cx + a, cy + b);
          const k = (b + R) * size + a + R;
          if (ix < 0 || iy < 0 || ix > I.w - 1 || iy > I.h - 1) {
            valid[k] = 0;
            continue;
          }
          valid[k] = 1;
          patch[k] = sample(I, ix, iy);
          mean += patch[k];
          n++;
        }
      }
      if (n < size * size * 0.6) continue;
      mean /= n;
      let ss = 0;
      for (let k = 0; k < patch.length; k++) if (valid[k]) {
        patch[k] -= mean;
        ss += patch[k] * patch[k];
      }
      if (ss / n < 9) continue; // flat patch: no information
      // every shift scored in WebAssembly (the patch against the original's window around (cx, cy))
      const scores = blockScoresKernel(O, cx, cy, R, S, patch, valid, n, ss);
      let best = -2;
      let bi = 0;
      for (let idx = 0; idx < scores.length; idx++) {
        if (scores[idx] > best) {
          best = scores[idx];
          bi = idx;
        }
      }
      if (best < 0.6) continue;
      const bx = (bi % (2 * S + 1)) - S;
      const by = math.floor(bi / (2 * S + 1)) - S;
      let sxo = 0;
      let syo = 0;
      if (math.abs(bx) < S) {
        const l = scores[bi - 1];
        const r = scores[bi + 1];
        const den = l - 2 * best + r;
        if (den < 0) sxo = (0.5 * (l - r)) / den;
      }
      if (math.abs(by) < S) {
        const u = scores[bi - (2 * S + 1)];
        const d = scores[bi + (2 * S + 1)];
        const den = u - 2 * best + d;
        if (den < 0) syo = (0.5 * (u - d)) / den;
      }
      // inspected point that maps to (cx, cy) under H
      const [ipx, ipy] = applyH(Hi, cx, cy);
      out.push({ px: ipx, py: ipy, qx: cx + bx + sxo, qy: cy + by + syo, w: best });
    }
  }
  return out;
}

function fitModel(m: Match[], projective: boolean): Homography | null {
  const n = projective ? 8 : 6;
  const A = new Float64Array(n * n);
  const b = new Float64Array(n);
  for (const k of m) {
    const rows: [number[], number][] = projective
      ? [
          [[k.px, k.py, 1, 0, 0, 0, -k.px * k.qx, -k.py * k.qx], k.qx],
          [[0, 0, 0, k.px, k.py, 1, -k.px * k.qy, -k.py * k.qy], k.qy],
        ]
      : [
          [[k.px, k.py, 1, 0, 0, 0], k.qx],
          [[0, 0, 0, k.px, k.py, 1], k.qy],
        ];
    for (const [r, v] of rows) {
      for (let i = 0; i < n; i++) {
        b[i] += k.w * r[i] * v;
        for (let j = 0; j < n; j++) A[i * n + j] += k.w * r[i] * r[j];
      }
    }
  }
  const x = solve(A, b, n);
  if (!x) return null;
  return projective ? Float64Array.from([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], 1]) : Float64Array.from([x[0], x[1], x[2], x[3], x[4], x[5], 0, 0, 1]);
}

function robustFit(matches: Match[], projective: boolean): Homography | null {
  let m = matches;
  let H: Homography | null = null;
  for (let it = 0; it < 4; it++) {
    if (m.length < (projective ? 10 : 4)) return H;
    H = fitModel(m, projective);
    if (!H) return null;
    const res = m.map((k) => {
      const [x, y] = applyH(H as Homography, k.px, k.py);
      return math.hypot(x - k.qx, y - k.qy);
    });
    const sorted = [...res].sort((a, b) => a - b);
    const med = sorted[math.floor(sorted.length / 2)];
    const lim = math.max(0.75, 2.5 * med);
    const keep = m.filter((_, i) => res[i] <= lim);
    if (keep.length === m.length) break;
    m = keep;
  }
  return H;
}

const fillRegions = new WeakMap<Float32Array, Uint8Array>();

/** The inspected plane's filled canvas (corners' uniform regions), its edge and the frame's, computed once per plane. */
function fillRegionOf(I: Plane): Uint8Array {
  let region = fillRegions.get(I.d);
  if (!region) {
    region = fillWithEdge(I.d, I.w, I.h);
    fillRegions.set(I.d, region);
  }
  return region;
}

const reduced = new WeakMap<Float32Array, Plane>();

/** The original reduced to w x h, the last size kept per plane (the polish scores many nearby registrations). */
function reducedOf(O: Plane, w: number, h: number): Plane {
  const last = reduced.get(O.d);
  if (last && last.w === w && last.h === h) return last;
  const p = resize(O, w, h);
  reduced.set(O.d, p);
  return p;
}

/**
 * NCC between the inspected and the original warped by H, on a sample grid: the better of all samples and of the
 * samples outside the inspected's filled canvas. Where a canvas filled around a rotated image covers original
 * content (a crop came before the rotation), it lowers the score of the right alignment; where the corners' uniform
 * region is the picture itself (a black frame), leaving it out would lose most of the information, so both count.
 */
export function alignmentScore(O0: Plane, I: Plane, H0: Homography): number {
  const sums = alignedSums(O0, I, H0, fillRegionOf(I), 0);
  return math.max(nccOf(sums.subarray(0, 6)), nccOf(sums.subarray(6, 12)));
}

/** Tiles per side of the local alignment score. */
const LOCAL_TILES = 8;

/**
 * Local alignment score: the NCC of each of 8 × 8 tiles of the inspected image against the original warped by H,
 * averaged with the tiles' sample counts as weights (a tile flat on either side counts 0). A strong vignette is a
 * gain that falls across the picture: the global NCC then measures the vignette more than the content. On a text
 * scan resized to 60 % under a vignette of 0.9, it preferred a wrong geometry at twice the scale (0.75–0.79) to the
 * right one (0.64–0.66); tile by tile the gain is nearly constant, and the right one wins clearly (0.47–0.55 against
 * 0.21–0.29).
 */
export function localAlignmentScore(O0: Plane, I: Plane, H0: Homography): number {
  const sums = alignedSums(O0, I, H0, null, LOCAL_TILES);
  let weighted = 0;
  let count = 0;
  for (let t = 0; t < sums.length; t += 6) {
    const n = sums[t];
    if (n < 20) continue;
    count += n;
    const va = sums[t + 3] - (sums[t + 1] * sums[t + 1]) / n;
    const vb = sums[t + 4] - (sums[t + 2] * sums[t + 2]) / n;
    // below half a level² per sample a tile is flat: JPEG noise, nothing to align
    if (va < 0.5 * n || vb < 0.5 * n) continue;
    weighted += n * ((sums[t + 5] - (sums[t + 1] * sums[t + 2]) / n) / math.sqrt(va * vb));
  }
  return count ? weighted / count : 0;
}

/**
 * NCC sums (alignedSumsKernel) over a grid of about 40,000 inspected pixels that H maps inside the original, of the
 * inspected value and the original's there (a reduced copy of the original when the inspected is smaller: compared at
 * its resolution). In WebAssembly, with the planes kept in its memory between scores: a registration scores some 100
 * geometries, and in JavaScript this loop was the largest part of extracting a keystoned copy.
 */
function alignedSums(O0: Plane, I: Plane, H0: Homography, fill: Uint8Array | null, tiles: number): Float64Array {
  const sigma = math.sqrt(math.abs(H0[0] * H0[4] - H0[1] * H0[3]));
  let O = O0;
  let H = H0;
  if (sigma > 1.3) {
    O = reducedOf(O0, math.max(8, math.round(O0.w / sigma)), math.max(8, math.round(O0.h / sigma)));
    const rx = O.w / O0.w;
    const ry = O.h / O0.h;
    H = mulH(Float64Array.from([rx, 0, 0.5 * rx - 0.5, 0, ry, 0.5 * ry - 0.5, 0, 0, 1]), H0);
  }
  const step = math.max(1, math.floor(math.sqrt((I.w * I.h) / 40000)));
  return alignedSumsKernel(O, I, H, step, fill, tiles);
}

/** NCC from the sums (n, Σa, Σb, Σa², Σb², Σab) of alignedSums; 0 below 50 samples. */
function nccOf(s: Float64Array): number {
  const n = s[0];
  if (n < 50) return 0;
  const cov = s[5] - (s[1] * s[2]) / n;
  const den = math.sqrt(math.max(1e-9, (s[3] - (s[1] * s[1]) / n) * (s[4] - (s[2] * s[2]) / n)));
  return cov / den;
}

/**
 * Registers the inspected image against the original: coarse search over rotation (orientation histograms)
 * and scale (size ratios, then a log-scale sweep) with masked NCC for translation, then block-matching
 * refinement to an affine and, with enough matches, a projective model.
 */
export function register(O: Plane, I: Plane, thorough = false): Registration | null {
  if (O.w === I.w && O.h === I.h) {
    // same size: most edits keep the geometry; start from the identity
    const r = refine(O, I, { H: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), ncc: 1, theta: 0, mirror: false, search: 3 });
    if (r.raw >= 0.97) return r;
  }
  const d = math.max(1, math.max(O.w, O.h) / 96);
  const Ic = resize(I, math.max(4, math.round(I.w / d)), math.max(4, math.round(I.h / d)));
  const dIx = I.w / Ic.w;
  const dIy = I.h / Ic.h;
  // original pyramid levels: the template (inspected) and the original are compared at about the same resolution
  const levels = new Map<number, Plane>();
  const level = (f: number): Plane => {
    let p = levels.get(f);
    if (!p) {
      p = resize(O, math.max(8, math.round(O.w / (d * f))), math.max(8, math.round(O.h / (d * f))));
      levels.set(f, p);
    }
    return p;
  };
  const md = math.max(1, math.max(O.w, O.h) / 256);
  const orientations = rotationCandidates(resize(O, math.round(O.w / md), math.round(O.h / md)), resize(I, math.max(4, math.round(I.w / md)), math.max(4, math.round(I.h / md))));
  const rw = I.w / O.w;
  const rh = I.h / O.h;
  const sweep: number[] = [];
  for (let s = 1.4; s > 0.12; s /= 1.1) sweep.push(s);
  /** Scale guesses for a rotation: none, the size ratios along the rotated axes, and the expanded-canvas box. */
  const scalesFor = (theta: number): [number, number][] => {
    const c = math.abs(math.cos(theta));
    const sn = math.abs(math.sin(theta));
    const ratio: [number, number] = c >= sn ? [rw, rh] : [I.h / O.w, I.w / O.h];
    const boxed = 0.5 * (I.w / (O.w * c + O.h * sn) + I.h / (O.w * sn + O.h * c));
    const out: [number, number][] = [[1, 1], ratio, [math.max(...ratio), math.max(...ratio)]];
    if (out.every(([a, b]) => math.abs(a / boxed - 1) > 0.03 || math.abs(b / boxed - 1) > 0.03)) out.push([boxed, boxed]);
    return out;
  };
  // A canvas filled around a rotated copy is not the original's content: in the template it dominates a dark picture
  // (a white fill around a night sky) and, when the copy was cropped off-centre, falls outside the original wherever
  // the template is placed (coarse NCC below 0 at the right angle and scale). When the search finds nothing
  // convincing, it runs again with the fill (grown by a pixel: its border is blended) left out of the template.
  // (not for a small template: a crop of a few percent has no canvas, and a flat corner of it is content)
  const small = Ic.w * Ic.h < SMALL_TEMPLATE;
  let best: Candidate | null = null;
  const all: Candidate[] = [];
  let mask: Uint8Array | null = null;
  const tryCand = (theta: number, sx: number, sy: number, mirror: boolean): void => {
    // level factor: 1, 2 or 4 so that an inspected coarse pixel covers about one original coarse pixel
    const sm = math.min(sx, sy);
    const f = sm < 0.35 ? 4 : sm < 0.7 ? 2 : 1;
    const Oc = level(f);
    if (Oc.w < 8 || Oc.h < 8) return;
    const dOx = O.w / Oc.w;
    const dOy = O.h / Oc.h;
    const c = coarseSearch(Oc, Ic, theta, (sx * dOx) / dIx, (sy * dOy) / dIy, mirror, mask);
    if (!c) return;
    // to working resolution: q = Sorig * Hc * Sinsp^-1 p
    c.H = mulH(mulH(scaleH(dOx, dOy), c.H), scaleH(1 / dIx, 1 / dIy));
    c.search = math.ceil(2 * math.max(dOx, dOy)) + 2;
    c.masked = mask !== null;
    all.push(c);
    if (!best || c.ncc > best.ncc) best = c;
  };
  const good = (): boolean => best !== null && (best).ncc >= 0.95;
  const search = (): void => {
    // orientations in order of histogram agreement; stop at the first convincing match
    for (const o of orientations) {
      for (const [sx, sy] of scalesFor(o.theta)) tryCand(o.theta, sx, sy, o.mirror);
      if (good()) break;
    }
    if (!good()) {
      // rotation sweep around the best orientations (histogram candidates can miss on round or busy content)
      const base = [...all].sort((a, b) => b.ncc - a.ncc)[0] ?? { theta: 0, mirror: false };
      for (let deg = 3; deg <= 30 && !good(); deg += 3) {
        for (const sgn of [1, -1]) {
          const t = base.theta + (sgn * deg * math.PI) / 180;
          for (const [sx, sy] of scalesFor(t).slice(0, 3)) tryCand(t, sx, sy, base.mirror);
        }
      }
    }
    if (thorough && !good()) {
      // the whole circle in 4-degree steps, both mirror states, with the size-ratio scale guesses: for content whose
      // gradient orientations say nothing (a sky with faint clouds) the histogram candidates miss the angle, while
      // the coarse NCC of smooth content falls off slowly around the right one (within 0.05 over +-4 degrees)
      for (let deg = 0; deg < 360 && !good(); deg += 4) {
        for (const mirror of [false, true]) {
          const t = (deg * math.PI) / 180;
          for (const [sx, sy] of scalesFor(t).slice(0, 3)) tryCand(t, sx, sy, mirror);
        }
      }
    }
    if (!good()) {
      // log-scale sweep for the two best coarse orientations and the best histogram orientations of each mirror
      // state (a wrong scale can make the right angle score low, so the histogram's own ranking is kept too)
      const seen: { theta: number; mirror: boolean }[] = [];
      const add = (c: { theta: number; mirror: boolean }): void => {
        if (seen.every((q) => q.mirror !== c.mirror || math.abs(math.atan2(math.sin(q.theta - c.theta), math.cos(q.theta - c.theta))) > 0.01)) seen.push(c);
      };
      for (const c of [...all].sort((a, b) => b.ncc - a.ncc).slice(0, 8)) if (seen.length < 2) add(c);
      // and, for a small inspected image, the unturned orientation (most edits keep it; the histogram ranking leaves it
      // out, and a resize then a crop is at a scale none of the size-ratio guesses makes: a 129 x 86 copy of the coffee
      // photo at 0.40 was never tried). Not for larger ones: there a sweep candidate that passes 0.95 ends the search
      // wrong where feature matching would have followed (a keystone of the black-frame photo: 0.972 instead of 0.997)
      if (math.min(I.w, I.h) < SMALL_SIDE) add({ theta: 0, mirror: false });
      for (const mirror of [false, true]) for (const o of orientations.filter((q) => q.mirror === mirror && q.score < 2 && q.score > -2).slice(0, 4)) add(o);
      for (const c of seen) for (const s of sweep) tryCand(c.theta, s, s, c.mirror);
    }
    if (!good()) {
      // polish the best coarse candidates: a small hill climb over (angle, scale) with shrinking steps (an angle a few
      // degrees or a scale ~10 % off sends the block matching of the refinement to wrong matches)
      const starts: Candidate[] = [];
      for (const c of [...all].sort((a, b) => b.ncc - a.ncc)) {
        if (starts.length >= 3) break;
        if (starts.every((q) => q.mirror !== c.mirror || math.abs(math.atan2(math.sin(q.theta - c.theta), math.cos(q.theta - c.theta))) > 0.05)) starts.push(c);
      }
      for (const start of starts) {
        let cur = start;
        let sc = scaleOf(start);
        let dt = (2 * math.PI) / 180;
        let ds = 0.04;
        for (let it = 0; it < 4 && !good(); it++) {
          const before = all.length;
          for (const a of [-1, 0, 1]) for (const b of [-1, 0, 1]) if (a || b) tryCand(cur.theta + a * dt, sc * (1 + b * ds), sc * (1 + b * ds), cur.mirror);
          let moved = false;
          for (const c of all.slice(before)) if (c.ncc > cur.ncc) {
            cur = c;
            moved = true;
          }
          if (moved) sc = scaleOf(cur);
          else {
            dt /= 2;
            ds /= 2;
          }
        }
      }
    }
  };
  search();
  // the fill is only looked for when the plain search was not convincing (most copies end before)
  const skip = !good() && !small ? fillSkip(Ic) : null;
  if (skip) {
    mask = skip;
    search();
    mask = null;
  }
  // A small template (a crop of a few percent, ~17 x 11 coarse pixels) says little at the coarse level: on smooth
  // content many orientations pass 0.95 (a 3 % crop of the coffee photo stopped at a mirror, refined to NCC 0.976,
  // where the plain crop gives 0.999). Its unturned candidates are always tried too (most edits keep the
  // orientation), one of them is always refined, and the refined candidates are compared, not the first convincing
  // one kept.
  let unturned: Candidate | null = null;
  let unturnedSwept: Candidate | null = null;
  if (small) {
    const before = all.length;
    for (const [sx, sy] of scalesFor(0)) tryCand(0, sx, sy, false);
    for (const c of all.slice(before)) if (!unturned || c.ncc > unturned.ncc) unturned = c;
    // and the unturned orientation at every scale of the sweep, when an early convincing candidate ended the search
    // before the sweep: a 68 x 34 px copy of the page photo at 0.31 (a resize then a crop, at no size ratio) was
    // never tried there, and a mirrored candidate at 0.86 was kept (NCC 0.783, where the right one refines to 0.977)
    // (kept out of the ranking below: only their best is added, after the others, so the candidates refined before
    // stay the same)
    const swept = all.length;
    for (const sc of sweep) tryCand(0, sc, sc, false);
    for (const c of all.splice(swept)) if (!unturnedSwept || c.ncc > unturnedSwept.ncc) unturnedSwept = c;
  }
  // refine the best coarse candidate; when the result is not convincing, also the next distinct ones
  all.sort((a, b) => b.ncc - a.ncc);
  const picked: Candidate[] = [];
  const isDup = (p: Candidate, c: Candidate): boolean => math.abs(p.H[0] - c.H[0]) + math.abs(p.H[1] - c.H[1]) < 0.05 * math.abs(p.H[0]) && math.hypot(p.H[2] - c.H[2], p.H[5] - c.H[5]) < 3;
  for (const c of all) {
    if (picked.length >= 3) break;
    if (!c.masked && !picked.some((p) => isDup(p, c))) picked.push(c);
  }
  // the masked search's best after them: its NCC over fewer pixels runs higher, and refined first it took the place
  // of a plain candidate that refined better (a strong two-step of the astronaut: 0.995 -> 0.994, no longer detected)
  let maskedPicked = 0;
  for (const c of all) {
    if (maskedPicked >= 2) break;
    if (c.masked && !picked.some((p) => isDup(p, c))) {
      picked.push(c);
      maskedPicked++;
    }
  }
  for (const u of [unturned, unturnedSwept]) if (u && !picked.some((p) => isDup(p, u))) picked.push(u);
  let out: Registration | null = null;
  for (const c of picked) {
    const refined = refine(O, I, c);
    // small: an unconvincing one is polished before the comparison (a 3 % crop of sky in the kite photo: the unturned
    // candidate refined to 0.863 and polished to 0.937 at the right place, where a turned one refined to 0.889 and
    // was kept at 0.914); a polish of a tiny inspected image costs little
    const r = small && refined.ncc < POLISH_BELOW ? polish(O, I, refined) : refined;
    // small: the others are refined too, and replace the first only when clearly better (the polish that follows
    // moves registrations of tiny templates by about 0.001, so closer scores say nothing)
    if (!out || r.ncc > out.ncc + (small && out.raw >= 0.97 ? SMALL_TEMPLATE_MARGIN : 0)) out = r;
    if (out.raw >= 0.97 && !small) break;
  }
  // only the best refined candidate is polished (each polish scores about 60 geometries)
  return out && out.ncc < POLISH_BELOW && !small ? polish(O, I, out) : out;
}

/** Least and greatest share of a coarse inspected plane in a filled canvas for the fill to be left out too. */
const FILL_SKIP_MIN = 0.02;
const FILL_SKIP_MAX = 0.6;

/**
 * The coarse inspected plane's filled canvas grown by one pixel, and the frame's outer pixel (fillWithEdge), or null
 * when there is little or mostly fill.
 */
function fillSkip(Ic: Plane): Uint8Array | null {
  const out = growRegion(canvasFillRegion(Ic.d, Ic.w, Ic.h), Ic.w, Ic.h, 1);
  let count = 0;
  for (const f of out) count += f;
  // the frame is counted in the share only where it is fill already: a copy without a fill is not searched again
  const share = count / out.length;
  return share >= FILL_SKIP_MIN && share <= FILL_SKIP_MAX ? withFrame(out, Ic.w, Ic.h, 1) : null;
}

/** The isotropic scale guess (inspected pixels per original pixel) a working-resolution candidate was built with. */
function scaleOf(c: Candidate): number {
  return 1 / math.sqrt(math.abs(c.H[0] * c.H[4] - c.H[1] * c.H[3]));
}

/** Index-coordinate scaling matrix for a plane resized by (rx, ry). */
function indexScale(rx: number, ry: number): Homography {
  return Float64Array.from([rx, 0, 0.5 * rx - 0.5, 0, ry, 0.5 * ry - 0.5, 0, 0, 1]);
}

const halves = new WeakMap<Float32Array, Plane>();

/**
 * A plane at half size, kept per plane: every candidate refined starts from the same two reductions (an unrelated
 * 4 MP photo checked against a small original: 15 refinements, 45 ms per reduction of the copy).
 */
function halfOf(P: Plane): Plane {
  let half = halves.get(P.d);
  if (!half) {
    half = resize(P, math.max(8, math.round(P.w / 2)), math.max(8, math.round(P.h / 2)));
    halves.set(P.d, half);
  }
  return half;
}

/** Polishes a registration found elsewhere (feature matching) with the block-matching refinement. */
export function refineFrom(O: Plane, I: Plane, H: Homography): Registration {
  const r = refine(O, I, { H, ncc: 0, theta: 0, mirror: false, search: 3 });
  return r.ncc < POLISH_BELOW ? polish(O, I, r) : r;
}

function refine(O: Plane, I: Plane, coarse: Candidate): Registration {
  let H = coarse.H;
  let ncc = alignmentScore(O, I, H);
  const grid = math.max(4, math.min(8, math.floor(math.min(I.w, I.h) / 24)));
  if (coarse.search > 5 && math.min(I.w, I.h) >= 64) {
    // wide first pass at half resolution
    const O2 = halfOf(O);
    const I2 = halfOf(I);
    const AO = indexScale(O2.w / O.w, O2.h / O.h);
    const AI = indexScale(I2.w / I.w, I2.h / I.h);
    const H2 = mulH(mulH(AO, H), invertH(AI));
    const matches = blockMatches(O2, I2, H2, 6, math.ceil(coarse.search / 2) + 1, grid);
    const next2 = robustFit(matches, false);
    if (next2) {
      const next = mulH(mulH(invertH(AO), next2), AI);
      const score = alignmentScore(O, I, next);
      if (score >= ncc - 0.002) {
        H = next;
        ncc = score;
      }
    }
  }
  // issue 34: a small inspected image (a crop of ~1 % of the picture, 77 px wide) gives the affine and projective
  // fits a few noisy matches over a short baseline: a wrong linear part (scale 0.93 and a 3 % shear on a plain crop)
  // scored the same NCC as the right one (0.998; smooth content hardly tells them apart) and was kept. There the
  // translation is corrected alone first, and a model with more freedom must then beat the score, not just match it.
  const small = math.min(I.w, I.h) < SMALL_SIDE;
  if (small) {
    const shifted = shiftFit(blockMatches(O, I, H, 10, coarse.search > 5 ? 3 : coarse.search, grid), H);
    const score = shifted ? alignmentScore(O, I, shifted) : -1;
    if (shifted && score >= ncc - 0.002) {
      H = shifted;
      ncc = score;
    }
  }
  // issue 34: a keystone (a phone photographing a screen at an angle) leaves the affine fit pixels off at the far
  // edge, more than one projective pass with a 2-pixel search can take back; two wider projective passes follow
  // (each kept only when the alignment improves, so other edits keep what they had)
  const passes: [number, number, boolean][] = [
    [10, coarse.search > 5 ? 3 : coarse.search, false],
    [8, 2, true],
    [8, 5, true],
    [8, 2, true],
  ];
  for (const [pass, [R, S, projective]] of passes.entries()) {
    // the wider passes only when the first two left the registration short of convincing
    if (pass >= 2 && ncc >= 0.99) break;
    const matches = blockMatches(O, I, H, R, S, grid);
    const next = robustFit(matches, projective && matches.length >= 16);
    if (!next) continue;
    const score = alignmentScore(O, I, next);
    if (small ? score > ncc + SMALL_MARGIN : score >= ncc - 0.002) {
      H = next;
      ncc = score;
    }
  }
  return { H, ncc, raw: ncc };
}

/** Inspected images with a shorter side below this (working pixels) are refined translation first (see refine). */
const SMALL_SIDE = 160;
/** NCC by which an affine or projective step must beat the current registration of a small image. */
const SMALL_MARGIN = 0.002;

/** H with its translation corrected by the robust mean displacement of the matches (linear part kept). */
function shiftFit(matches: Match[], H: Homography): Homography | null {
  if (matches.length < 3) return null;
  const d = matches.map((k) => {
    const [x, y] = applyH(H, k.px, k.py);
    return { dx: k.qx - x, dy: k.qy - y, w: k.w };
  });
  const mags = d.map((e) => math.hypot(e.dx, e.dy)).sort((a, b) => a - b);
  const lim = math.max(0.75, 2.5 * mags[mags.length >> 1]);
  let sx = 0;
  let sy = 0;
  let sw = 0;
  for (const e of d) {
    if (math.hypot(e.dx, e.dy) > lim + 1e-9 && mags[mags.length >> 1] < lim) continue;
    sx += e.w * e.dx;
    sy += e.w * e.dy;
    sw += e.w;
  }
  if (sw <= 0) return null;
  // q = H p + t: the shift is added after H (in original coordinates)
  return mulH(Float64Array.from([1, 0, sx / sw, 0, 1, sy / sw, 0, 0, 1]), H);
}

/** Below this alignment NCC a refined registration is polished directly on the alignment score. */
const POLISH_BELOW = 0.95;
/** Coarse templates below this many pixels are small (see register): a 5 % crop is about 300, a 10 % crop about 600. */
const SMALL_TEMPLATE = 400;
/** How much better (alignment NCC) another refined candidate of a small template must be to replace a convincing first one. */
const SMALL_TEMPLATE_MARGIN = 0.005;

/**
 * Coordinate ascent of the alignment score over translation, rotation and scale about the inspected centre, with
 * shrinking steps (2 px, 0.5 degree, 1 % down to an eighth). The block matching needs textured patches: on a 10 %
 * crop of the rocket photo (mostly flat sky) it left the registration 3.7 px off (NCC 0.81, the exact one 0.99).
 */
function polish(O: Plane, I: Plane, start: Registration): Registration {
  const cx = (I.w - 1) / 2;
  const cy = (I.h - 1) / 2;
  // H * (translation by the inspected centre) * similarity(angle, scale) * (back)
  const moved = (H: Homography, dx: number, dy: number, angle: number, scale: number): Homography => {
    const c = math.cos(angle) * scale;
    const sn = math.sin(angle) * scale;
    const S = Float64Array.from([c, -sn, cx - c * cx + sn * cy + dx, sn, c, cy - sn * cx - c * cy + dy, 0, 0, 1]);
    return mulH(H, S);
  };
  let best = start;
  const steps = [2, (0.5 * math.PI) / 180, 0.01];
  // translation alone first (the usual error after block matching), then with angle and scale
  for (let round = 0; round < 7; round++) {
    const params = round < 2 ? 2 : 4;
    let improved = true;
    while (improved) {
      improved = false;
      for (let p = 0; p < params; p++) {
        for (const sgn of [1, -1]) {
          const d = sgn * steps[math.min(2, math.max(0, p - 1))];
          const H = moved(best.H, p === 0 ? d : 0, p === 1 ? d : 0, p === 2 ? d : 0, p === 3 ? 1 + d : 1);
          const ncc = alignmentScore(O, I, H);
          if (ncc > best.ncc + 1e-4) {
            best = { H, ncc, raw: start.raw };
            improved = true;
          }
        }
      }
    }
    if (round !== 1) for (let k = 0; k < steps.length; k++) steps[k] /= 2;
  }
  return best;
}

/** The homography mapping the four points p to the four points q (fitModel, exact for four), or null when degenerate. */
export function homographyFromCorners(p: readonly (readonly number[])[], q: readonly (readonly number[])[]): Homography | null {
  return fitModel(p.map(([px, py], i) => ({ px, py, qx: q[i][0], qy: q[i][1], w: 1 })), true);
}

/**
 * Coordinate ascent of the alignment score over the eight degrees of freedom of a homography: where each corner of
 * the inspected image lands in the original, moved one coordinate at a time by a step that halves from a sixteenth
 * of the shorter side (at most 32 px) down to a quarter pixel. Block matching needs textured patches: on smooth
 * content (a generated sky with faint clouds, keystoned by 10–20 %) it settled on an affine 113 px off at a corner
 * (NCC 0.64–0.81), where this climb reaches the true geometry within 1–3 px (0.946–0.949) and the mark decodes.
 * About 600–900 scores of the alignment (0.23 s on a 451 x 300 copy; 0.8–2.6 s on the 810 x 506 sky keystones, measured
 * with a benchmark running beside), so only for registrations no search made convincing.
 */
export function polishCorners(O: Plane, I: Plane, start: Registration): Registration {
  const p = [[0, 0], [I.w - 1, 0], [I.w - 1, I.h - 1], [0, I.h - 1]];
  let q: number[][] = p.map(([x, y]) => applyH(start.H, x, y));
  let best = start;
  for (let step = math.max(1, math.min(32, math.min(I.w, I.h) / 16)); step >= 0.25; step /= 2) {
    let improved = true;
    while (improved) {
      improved = false;
      for (let c = 0; c < 4; c++) {
        for (let axis = 0; axis < 2; axis++) {
          for (const sgn of [1, -1]) {
            const moved = q.map(([u, v], k) => (k === c ? (axis === 0 ? [u + sgn * step, v] : [u, v + sgn * step]) : [u, v]));
            const H = homographyFromCorners(p, moved);
            if (!H) continue;
            const ncc = alignmentScore(O, I, H);
            if (ncc > best.ncc + 1e-5) {
              best = { H, ncc, raw: start.raw };
              q = moved;
              improved = true;
            }
          }
        }
      }
    }
  }
  return best;
}

/** Largest deviation of a linear part from the identity (or a pure scale) that snapCrop tries to remove. */
const SNAP_TOLERANCE = 0.03;

/** Whether H is within SNAP_TOLERANCE of a uniform scale and a translation (snapCrop's domain). */
function nearUniformScale(H: Homography, I: Plane): boolean {
  // a projective part that moves no corner by more than 3 % of the size is the fit's noise too
  if (math.abs(H[6]) * I.w + math.abs(H[7]) * I.h > SNAP_TOLERANCE || math.abs(H[8] - 1) > 1e-9) return false;
  const s = 0.5 * (H[0] + H[4]);
  return s > 0 && math.abs(H[0] - s) <= SNAP_TOLERANCE * s && math.abs(H[4] - s) <= SNAP_TOLERANCE * s && math.abs(H[1]) <= SNAP_TOLERANCE * s && math.abs(H[3]) <= SNAP_TOLERANCE * s;
}

/**
 * Issue 34: a plain crop or resize has a linear part that is exactly a uniform scale, but the block-matching fits
 * leave errors of a few tenths of a percent (a 10 % crop of the astronaut: 0.999 / 0.996 with a shear of 0.003, the
 * offset 0.36 px off), and on smooth content the alignment NCC cannot tell them apart (0.999 either way), while the
 * decoding loses much (soft agreement 0.85 instead of ~1). When the linear part is within SNAP_TOLERANCE of a
 * uniform scale, that scale (with the translation that keeps the inspected centre in place) is tried, the
 * translation polished alone in steps down to 1/16 px; it is kept when its NCC is at least as good (the simpler
 * model wins a tie).
 *
 * `unresized` is the scale of a copy that was cropped but not resized (the ratio of the working scales; 1 when both
 * images are decoded at the same scale). Within the tolerance it is tried too, and kept over the fitted scale unless
 * the fitted one aligns better: a crop is the commonest leak, and on a copy of a few dozen pixels the fit's scale is
 * off by more than the mark tolerates (a 67 x 33 px crop of the page scan: fitted 0.994, NCC 0.9969, not decoded;
 * the exact crop 0.9987, decoded at 0.997).
 */
export function snapCrop(O: Plane, I: Plane, reg: Registration, unresized?: number): Registration {
  const H = reg.H;
  if (!nearUniformScale(H, I)) return reg;
  const fitted = 0.5 * (H[0] + H[4]);
  const cx = (I.w - 1) / 2;
  const cy = (I.h - 1) / 2;
  const [qx, qy] = applyH(H, cx, cy);
  /** The uniform scale s with the translation that keeps the inspected centre in place, polished. */
  const snapped = (s: number): Registration => {
    let best: Registration = { H: Float64Array.from([s, 0, qx - s * cx, 0, s, qy - s * cy, 0, 0, 1]), ncc: 0, raw: reg.raw };
    best.ncc = alignmentScore(O, I, best.H);
    for (let step = 1; step >= 1 / 16; step /= 2) {
      let improved = true;
      while (improved) {
        improved = false;
        for (const [dx, dy] of [[step, 0], [-step, 0], [0, step], [0, -step]]) {
          const C = Float64Array.from(best.H);
          C[2] += dx;
          C[5] += dy;
          const ncc = alignmentScore(O, I, C);
          if (ncc > best.ncc + 1e-6) {
            best = { H: C, ncc, raw: reg.raw };
            improved = true;
          }
        }
      }
    }
    return best;
  };
  let best = snapped(fitted);
  if (unresized !== undefined && unresized > 0 && math.abs(unresized - fitted) <= SNAP_TOLERANCE * fitted) {
    const crop = snapped(unresized);
    if (crop.ncc >= best.ncc) best = crop;
  }
  return best.ncc >= reg.ncc - 1e-4 ? best : reg;
}

/** Coarse template size (pixels) of the crop search; the reduction factor is chosen to stay near it. */
const CROP_SEARCH_PIXELS = 600;
/** Coarse peaks of the crop search followed down the pyramid. */
const CROP_SEARCH_PEAKS = 4;
/** How far the crop search's coarse best may fall below the registration already found and still be followed. */
const CROP_SEARCH_MARGIN = 0.1;
/** Templates of at least this many pixels (at the unresized scale) may end the crop search at its coarse level. */
const CROP_SEARCH_FULL = 16384;

/** A template with zero mean and unit norm (null when flat), for `windowNcc`. */
function unitTemplate(T: Plane): Float64Array | null {
  const m = T.w * T.h;
  let mean = 0;
  for (let k = 0; k < m; k++) mean += T.d[k];
  mean /= m;
  const t = new Float64Array(m);
  let norm = 0;
  for (let k = 0; k < m; k++) {
    t[k] = T.d[k] - mean;
    norm += t[k] * t[k];
  }
  if (norm < 1e-6) return null;
  norm = math.sqrt(norm);
  for (let k = 0; k < m; k++) t[k] /= norm;
  return t;
}

/** NCC of a unit template (tw x th) with the window of P at (ox, oy); -2 for a flat window. */
function windowNcc(P: Plane, t: Float64Array, tw: number, th: number, ox: number, oy: number): number {
  let dot = 0;
  let s1 = 0;
  let s2 = 0;
  for (let y = 0; y < th; y++) {
    const row = (oy + y) * P.w + ox;
    const trow = y * tw;
    for (let x = 0; x < tw; x++) {
      const v = P.d[row + x];
      dot += t[trow + x] * v;
      s1 += v;
      s2 += v * v;
    }
  }
  const variance = s2 - (s1 * s1) / (tw * th);
  // the template has zero mean, so the window's mean drops out of the dot product
  return variance < 1e-6 ? -2 : dot / math.sqrt(variance);
}

/**
 * Issue 34, sixth pass: the copy as a crop of the original at the unresized scale (`snapCrop`), found directly: an
 * exhaustive NCC search over every translation that keeps it inside the original at a reduction that leaves the
 * template ~600 pixels, the best few peaks followed down a pyramid (halving the reduction, ±2 pixels at each level),
 * then polished to 1/16 px by snapCrop. The template search reaches a geometry by block matching, and on a copy of
 * a few dozen pixels of a text scan the fit can settle on a wrong linear part that the alignment NCC still rates
 * highly (a 78 x 30 px crop of the text scan: scale 1.07, shear 0.13, NCC 0.9934, not decoded; the exact crop has
 * NCC 0.9960 and decodes). Only for a copy that fits inside the original; null when none, or when a large copy's
 * coarse search already falls short of `atLeast` by CROP_SEARCH_MARGIN (a resized or turned copy: the search then
 * costs a few milliseconds instead of the pyramid's ~100 on a 360 px copy).
 */
export function cropRegistration(O: Plane, I: Plane, unresized: number, atLeast = -1): Registration | null {
  if (!(unresized > 0)) return null;
  // the inspected image at the original's working scale (a crop is then a translation)
  const tw = math.round(I.w * unresized);
  const th = math.round(I.h * unresized);
  if (tw < 8 || th < 8 || tw > O.w || th > O.h) return null;
  const f = math.max(2, math.ceil(math.sqrt((tw * th) / CROP_SEARCH_PIXELS)));
  /** Original and template reduced by g, and the template's unit form. */
  const levelOf = (g: number): { P: Plane; T: Plane; t: Float64Array | null } => {
    const P = g === 1 ? O : resize(O, math.max(1, math.round(O.w / g)), math.max(1, math.round(O.h / g)));
    const T = resize(I, math.max(1, math.round(tw / g)), math.max(1, math.round(th / g)));
    return { P, T, t: T.w <= P.w && T.h <= P.h && T.w * T.h >= 16 ? unitTemplate(T) : null };
  };
  const top = levelOf(f);
  if (!top.t) return null;
  const nx = top.P.w - top.T.w + 1;
  const ny = top.P.h - top.T.h + 1;
  const score = new Float64Array(nx * ny);
  for (let oy = 0; oy < ny; oy++) for (let ox = 0; ox < nx; ox++) score[oy * nx + ox] = windowNcc(top.P, top.t, top.T.w, top.T.h, ox, oy);
  const order = Array.from(score.keys()).sort((p, q) => score[q] - score[p]);
  // A large template's pyramid is the costly part (~100 ms for a 360 px copy), and a coarse best far below the
  // registration already found does not end above it: a 70 % resize of a 512 px photo, 0.78–0.80 at the coarse level
  // for 0.996–0.999 found. A small template is always searched to the end: at a reduction of 2 the sampling phase
  // alone costs a text scan's exact crop up to 0.12 (78 x 30 px crops: 0.88 and 0.97 coarse, 0.996 at full size).
  if (tw * th >= CROP_SEARCH_FULL && !(score[order[0]] >= atLeast - CROP_SEARCH_MARGIN)) return null;
  // the best peaks, at least two coarse pixels apart (none when every window of the original is flat)
  const peaks: [number, number][] = [];
  for (const k of order) {
    if (peaks.length >= CROP_SEARCH_PEAKS || score[k] <= -2) break;
    const kx = k % nx;
    const ky = (k - kx) / nx;
    if (peaks.every(([px, py]) => math.max(math.abs(px - kx), math.abs(py - ky)) >= 2)) peaks.push([kx, ky]);
  }
  if (!peaks.length) return null;
  const levels: number[] = [];
  for (let g = math.floor(f / 2); g >= 1; g = g === 1 ? 0 : math.max(1, math.floor(g / 2))) levels.push(g);
  const pyramid = levels.map(levelOf);
  // each peak followed down the pyramid (offsets in full-resolution pixels); below a reduction of 4 only the best
  // one goes on (the finest levels cost the most)
  let tracks = peaks.map(([kx, ky]) => ({ x: kx * f, y: ky * f, ncc: -3 }));
  for (let i = 0; i < levels.length; i++) {
    const g = levels[i];
    const { P, T, t } = pyramid[i];
    if (!t) continue;
    if (g < 4 && tracks.length > 1) tracks = [tracks.reduce((a, b) => (b.ncc > a.ncc ? b : a))];
    for (const track of tracks) {
      const cx = math.round(track.x / g);
      const cy = math.round(track.y / g);
      track.ncc = -3;
      for (let oy = math.max(0, cy - 2); oy <= math.min(P.h - T.h, cy + 2); oy++) {
        for (let ox = math.max(0, cx - 2); ox <= math.min(P.w - T.w, cx + 2); ox++) {
          const ncc = windowNcc(P, t, T.w, T.h, ox, oy);
          if (ncc > track.ncc) {
            track.ncc = ncc;
            track.x = ox * g;
            track.y = oy * g;
          }
        }
      }
    }
  }
  const found = tracks.reduce((a, b) => (b.ncc > a.ncc ? b : a));
  const H = Float64Array.from([unresized, 0, found.x, 0, unresized, found.y, 0, 0, 1]);
  const ncc = alignmentScore(O, I, H);
  return snapCrop(O, I, { H, ncc, raw: ncc }, unresized);
}

/** Largest deviation of a linear part from the nearest similarity that snapSimilarity tries to remove. */
const SIMILARITY_TOLERANCE = 0.06;
/** Registrations at or above this alignment NCC are left as they are by snapSimilarity. */
const SIMILARITY_BELOW = 0.99;

/**
 * Issue 34: chains of crop, scale, mirror and rotation are a similarity (with a mirror, an anti-similarity), but on a
 * copy of ~200 px the block-matching fits can settle on a linear part a few percent anisotropic (chelsea, chain of
 * 5: column norms 2.03 / 2.10, NCC 0.973, where the similarity reaches 0.993). When a registration is not
 * convincing and its linear part is within SIMILARITY_TOLERANCE of the nearest (anti-)similarity, that similarity
 * (keeping the inspected centre in place) is polished on the alignment score (translation, angle, scale) and kept
 * when its NCC is higher.
 */
export function snapSimilarity(O: Plane, I: Plane, reg: Registration): Registration {
  // an unturned copy is snapCrop's: there a polished rotation could raise the global NCC on a page of text while
  // the decoding lost (page.png, strong two-step: NCC 0.964 -> 0.977 with a turn, soft agreement 0.53 -> 0.42)
  if (reg.ncc >= SIMILARITY_BELOW || !(reg.H[8] > 0)) return reg;
  // a homography is defined up to a factor: compare its normalised form
  const H = reg.H.map((value) => value / reg.H[8]);
  if (nearUniformScale(H, I) || math.abs(H[6]) * I.w + math.abs(H[7]) * I.h > SIMILARITY_TOLERANCE) return reg;
  const [a, b, c, d] = [H[0], H[1], H[3], H[4]];
  const mirrored = a * d - b * c < 0;
  // the nearest similarity [p -q; q p], or anti-similarity [p q; q -p], in the Frobenius norm
  const p = mirrored ? 0.5 * (a - d) : 0.5 * (a + d);
  const q = mirrored ? 0.5 * (b + c) : 0.5 * (c - b);
  const L = mirrored ? [p, q, q, -p] : [p, -q, q, p];
  const s = math.hypot(p, q);
  if (!(s > 0) || math.max(math.abs(a - L[0]), math.abs(b - L[1]), math.abs(c - L[2]), math.abs(d - L[3])) > SIMILARITY_TOLERANCE * s) return reg;
  const cx = (I.w - 1) / 2;
  const cy = (I.h - 1) / 2;
  const [qx, qy] = applyH(H, cx, cy);
  const S = Float64Array.from([L[0], L[1], qx - L[0] * cx - L[1] * cy, L[2], L[3], qy - L[2] * cx - L[3] * cy, 0, 0, 1]);
  const polished = polish(O, I, { H: S, ncc: alignmentScore(O, I, S), raw: reg.raw });
  return polished.ncc > reg.ncc + 1e-4 ? polished : reg;
}
