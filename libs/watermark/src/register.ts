import { applyH, Homography, mulH, Plane, resize, sample, scaleH, solve } from './image';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

export interface Registration {
  /** Maps inspected (working) pixel coordinates to original (working) pixel coordinates. */
  H: Homography;
  /** Normalised cross-correlation of the aligned overlap (0..1). */
  ncc: number;
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

/** Rotation candidates (radians, inspected relative to original) from gradient-orientation histograms. */
export function rotationCandidates(O: Plane, I: Plane): number[] {
  const bins = 90;
  const ho = zeroMean(orientationHistogram(O, bins));
  const hi = zeroMean(orientationHistogram(I, bins));
  const scores: { shift: number; v: number }[] = [];
  const maxShift = 16; // 32 degrees
  for (let s = -maxShift; s <= maxShift; s++) {
    let v = 0;
    for (let i = 0; i < bins; i++) v += ho[i] * hi[(i + s + bins) % bins];
    scores.push({ shift: s, v });
  }
  const peaks = scores.filter((c, k) => k > 0 && k < scores.length - 1 && c.v >= scores[k - 1].v && c.v >= scores[k + 1].v && c.v > 0);
  peaks.sort((a, b) => b.v - a.v);
  const out = [0];
  for (const p of peaks.slice(0, 3)) {
    // refine by parabola
    const k = p.shift + maxShift;
    let off = 0;
    if (k > 0 && k < scores.length - 1) {
      const a = scores[k - 1].v;
      const b = scores[k].v;
      const c = scores[k + 1].v;
      const den = a - 2 * b + c;
      if (den < 0) off = (0.5 * (a - c)) / den;
    }
    const ang = ((p.shift + off) * math.PI) / bins;
    if (out.every((o) => math.abs(o - ang) > 0.02)) out.push(ang);
  }
  return out;
}

interface Candidate {
  H: Homography;
  ncc: number;
  theta: number;
  /** Block-matching search radius (working pixels) for the first refinement pass. */
  search: number;
}

/** Masked NCC template search of the inspected (rotated/scaled into the original frame) over the original. */
export function coarseSearch(Oc: Plane, Ic: Plane, theta: number, sx: number, sy: number): Candidate | null {
  const cos = math.cos(theta);
  const sin = math.sin(theta);
  const cI = [(Ic.w - 1) / 2, (Ic.h - 1) / 2];
  // inspected -> template frame: t = D^-1 R(-theta) (p - cI)
  const toT = (px: number, py: number): [number, number] => {
    const dx = px - cI[0];
    const dy = py - cI[1];
    return [(cos * dx + sin * dy) / sx, (-sin * dx + cos * dy) / sy];
  };
  const corners = [toT(0, 0), toT(Ic.w - 1, 0), toT(0, Ic.h - 1), toT(Ic.w - 1, Ic.h - 1)];
  const minX = math.min(...corners.map((c) => c[0]));
  const maxX = math.max(...corners.map((c) => c[0]));
  const minY = math.min(...corners.map((c) => c[1]));
  const maxY = math.max(...corners.map((c) => c[1]));
  const Tw = math.floor(maxX - minX) + 1;
  const Th = math.floor(maxY - minY) + 1;
  if (Tw > Oc.w + 1 || Th > Oc.h + 1 || Tw < 6 || Th < 6) return null;
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
      const px = cI[0] + cos * sx * ux - sin * sy * uy;
      const py = cI[1] + sin * sx * ux + cos * sy * uy;
      if (px < 0 || py < 0 || px > Ic.w - 1 || py > Ic.h - 1) continue;
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
  const off = Int32Array.from(offs);
  let best = -2;
  let bx = 0;
  let by = 0;
  for (let y = 0; y + th <= Oc.h; y++) {
    for (let x = 0; x + tw <= Oc.w; x++) {
      const base = y * Oc.w + x;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = 0; k < n; k++) {
        const o = Oc.d[base + off[k]];
        s1 += t[k] * o;
        s2 += o;
        s3 += o * o;
      }
      const den = s3 - (s2 * s2) / n;
      if (den <= 1e-6) continue;
      const c = s1 / math.sqrt(den);
      if (c > best) {
        best = c;
        bx = x;
        by = y;
      }
    }
  }
  // template pixel (tx,ty) sits at original (bx+tx, by+ty); template coordinate u = tx + minX + (Tw-tw)/2
  const ox = bx - minX - (Tw - tw) / 2;
  const oy = by - minY - (Th - th) / 2;
  // H: p -> q = (ox, oy) + D^-1 R(-theta) (p - cI)
  const a = cos / sx;
  const b = sin / sx;
  const c = -sin / sy;
  const d = cos / sy;
  const H = Float64Array.from([a, b, ox - a * cI[0] - b * cI[1], c, d, oy - c * cI[0] - d * cI[1], 0, 0, 1]);
  return { H, ncc: best, theta, search: 0 };
}

function invert(H: Homography): Homography {
  const [a, b, c, d, e, f, g, h, i] = H;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const inv = Float64Array.from([A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d]);
  for (let k = 0; k < 9; k++) inv[k] /= det;
  return inv;
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
  const Hi = invert(H);
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
      const scores = new Float64Array((2 * S + 1) * (2 * S + 1));
      let best = -2;
      let bi = 0;
      for (let dy = -S; dy <= S; dy++) {
        for (let dx = -S; dx <= S; dx++) {
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          for (let b = -R; b <= R; b++) {
            const row = (cy + dy + b) * O.w + cx + dx;
            for (let a = -R; a <= R; a++) {
              const k = (b + R) * size + a + R;
              if (!valid[k]) continue;
              const o = O.d[row + a];
              s1 += patch[k] * o;
              s2 += o;
              s3 += o * o;
            }
          }
          const den = math.sqrt(math.max(1e-9, (s3 - (s2 * s2) / n) * ss));
          const c = s1 / den;
          const idx = (dy + S) * (2 * S + 1) + dx + S;
          scores[idx] = c;
          if (c > best) {
            best = c;
            bi = idx;
          }
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

/** NCC between the inspected and the original warped by H, on a sample grid. */
export function alignmentScore(O0: Plane, I: Plane, H0: Homography): number {
  // compare at the inspected resolution: a reduced copy of the original when the inspected is smaller
  const sigma = math.sqrt(math.abs(H0[0] * H0[4] - H0[1] * H0[3]));
  let O = O0;
  let H = H0;
  if (sigma > 1.3) {
    O = resize(O0, math.max(8, math.round(O0.w / sigma)), math.max(8, math.round(O0.h / sigma)));
    const rx = O.w / O0.w;
    const ry = O.h / O0.h;
    H = mulH(Float64Array.from([rx, 0, 0.5 * rx - 0.5, 0, ry, 0.5 * ry - 0.5, 0, 0, 1]), H0);
  }
  const step = math.max(1, math.floor(math.sqrt((I.w * I.h) / 40000)));
  let n = 0;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let y = 0; y < I.h; y += step) {
    for (let x = 0; x < I.w; x += step) {
      const [qx, qy] = applyH(H, x, y);
      if (qx < 0 || qy < 0 || qx > O.w - 1 || qy > O.h - 1) continue;
      const a = I.d[y * I.w + x];
      const b = sample(O, qx, qy);
      n++;
      sa += a;
      sb += b;
      saa += a * a;
      sbb += b * b;
      sab += a * b;
    }
  }
  if (n < 50) return 0;
  const cov = sab - (sa * sb) / n;
  const den = math.sqrt(math.max(1e-9, (saa - (sa * sa) / n) * (sbb - (sb * sb) / n)));
  return cov / den;
}

/**
 * Registers the inspected image against the original: coarse search over rotation (orientation histograms)
 * and scale (size ratios, then a log-scale sweep) with masked NCC for translation, then block-matching
 * refinement to an affine and, with enough matches, a projective model.
 */
export function register(O: Plane, I: Plane): Registration | null {
  if (O.w === I.w && O.h === I.h) {
    // same size: most edits keep the geometry; start from the identity
    const r = refine(O, I, { H: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), ncc: 1, theta: 0, search: 3 });
    if (r.ncc >= 0.97) return r;
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
  const thetas = rotationCandidates(resize(O, math.round(O.w / md), math.round(O.h / md)), resize(I, math.max(4, math.round(I.w / md)), math.max(4, math.round(I.h / md))));
  const rw = I.w / O.w;
  const rh = I.h / O.h;
  const scales: [number, number][] = [[1, 1], [rw, rh], [math.max(rw, rh), math.max(rw, rh)]];
  for (let s = 1.4; s > 0.12; s /= 1.1) scales.push([s, s]);
  let best: Candidate | null = null;
  const all: Candidate[] = [];
  const tryCand = (theta: number, sx: number, sy: number): void => {
    // level factor: 1, 2 or 4 so that an inspected coarse pixel covers about one original coarse pixel
    const sm = math.min(sx, sy);
    const f = sm < 0.35 ? 4 : sm < 0.7 ? 2 : 1;
    const Oc = level(f);
    if (Oc.w < 8 || Oc.h < 8) return;
    const dOx = O.w / Oc.w;
    const dOy = O.h / Oc.h;
    const c = coarseSearch(Oc, Ic, theta, (sx * dOx) / dIx, (sy * dOy) / dIy);
    if (!c) return;
    // to working resolution: q = Sorig * Hc * Sinsp^-1 p
    c.H = mulH(mulH(scaleH(dOx, dOy), c.H), scaleH(1 / dIx, 1 / dIy));
    c.search = math.ceil(2 * math.max(dOx, dOy)) + 2;
    all.push(c);
    if (!best || c.ncc > best.ncc) best = c;
  };
  const good = (): boolean => best !== null && (best).ncc >= 0.95;
  for (const theta of thetas) for (const [sx, sy] of scales.slice(0, 3)) tryCand(theta, sx, sy);
  if (!good()) {
    // rotation sweep at the size-ratio scales (histogram candidates can miss on round or busy content)
    for (let deg = 3; deg <= 30 && !good(); deg += 3) {
      for (const sgn of [1, -1]) for (const [sx, sy] of scales.slice(0, 3)) tryCand((sgn * deg * math.PI) / 180, sx, sy);
    }
  }
  if (!good()) {
    const angles = [...thetas];
    if (best !== null && angles.every((t) => math.abs(t - (best as Candidate).theta) > 0.01)) angles.push((best as Candidate).theta);
    for (const theta of angles) for (const [sx, sy] of scales.slice(3)) tryCand(theta, sx, sy);
  }
  // refine the best coarse candidate; when the result is not convincing, also the next distinct ones
  all.sort((a, b) => b.ncc - a.ncc);
  const picked: Candidate[] = [];
  for (const c of all) {
    if (picked.length >= 3) break;
    const dup = picked.some((p) => math.abs(p.H[0] - c.H[0]) + math.abs(p.H[1] - c.H[1]) < 0.05 * math.abs(p.H[0]) && math.hypot(p.H[2] - c.H[2], p.H[5] - c.H[5]) < 3);
    if (!dup) picked.push(c);
  }
  let out: Registration | null = null;
  for (const c of picked) {
    const r = refine(O, I, c);
    if (!out || r.ncc > out.ncc) out = r;
    if (out.ncc >= 0.97) break;
  }
  return out;
}

/** Index-coordinate scaling matrix for a plane resized by (rx, ry). */
function indexScale(rx: number, ry: number): Homography {
  return Float64Array.from([rx, 0, 0.5 * rx - 0.5, 0, ry, 0.5 * ry - 0.5, 0, 0, 1]);
}

function refine(O: Plane, I: Plane, coarse: Candidate): Registration {
  let H = coarse.H;
  let ncc = alignmentScore(O, I, H);
  const grid = math.max(4, math.min(8, math.floor(math.min(I.w, I.h) / 24)));
  if (coarse.search > 5 && math.min(I.w, I.h) >= 64) {
    // wide first pass at half resolution
    const O2 = resize(O, math.max(8, math.round(O.w / 2)), math.max(8, math.round(O.h / 2)));
    const I2 = resize(I, math.max(8, math.round(I.w / 2)), math.max(8, math.round(I.h / 2)));
    const AO = indexScale(O2.w / O.w, O2.h / O.h);
    const AI = indexScale(I2.w / I.w, I2.h / I.h);
    const H2 = mulH(mulH(AO, H), invert(AI));
    const matches = blockMatches(O2, I2, H2, 6, math.ceil(coarse.search / 2) + 1, grid);
    const next2 = robustFit(matches, false);
    if (next2) {
      const next = mulH(mulH(invert(AO), next2), AI);
      const score = alignmentScore(O, I, next);
      if (score >= ncc - 0.002) {
        H = next;
        ncc = score;
      }
    }
  }
  const passes: [number, number, boolean][] = [
    [10, coarse.search > 5 ? 3 : coarse.search, false],
    [8, 2, true],
  ];
  for (const [R, S, projective] of passes) {
    const matches = blockMatches(O, I, H, R, S, grid);
    const next = robustFit(matches, projective && matches.length >= 16);
    if (!next) continue;
    const score = alignmentScore(O, I, next);
    if (score >= ncc - 0.002) {
      H = next;
      ncc = score;
    }
  }
  return { H, ncc };
}
