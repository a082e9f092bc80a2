/** Registered decoding: the original found in the inspected image, subtracted, and the residual decoded. */
import { cellObservations, confidenceOf, decodeLayers, DETECT_THRESHOLD, zFromCells } from './cell-decode';
import { LumaPlane } from './codec';
import { featureRegister } from './feature-register';
import { applyFir, firGain, fitFir, MIN_FIR_GAIN } from './fir';
import { vignetteField } from './local-gain';
import { colourMix, lutResidualMse, MIX_MIN_MSE } from './colour-mix';
import { maskCanvasFill, maskForeign } from './foreign-mask';
import { MARK_SYNC_MAX_SCALE, polishOnMark } from './mark-sync';
import { contentBox, cropPlane } from './content-box';
import { applyH, clipResidual, Homography, mulH, Plane, resize, sample, subtractLocalMean } from './image';
import { TARGET_MSE } from './embed';
import { warpCubicKernel } from './decode-kernel';
import { decodeSoft, DecodedPayload, LIST_SIZE } from './payload';
import { amplitudeMaps, buildLayers, cellActivity, fineCellSize, gridDims } from './pattern';
import { alignmentScore, cropRegistration, localAlignmentScore, polishCorners, refineFrom, register, Registration, snapCrop, snapSimilarity } from './register';
import { jointSoft, reweigh } from './soft-decode';
import { clippedShare, fitLut, lutAt, predictTone, RgbPlanes, TONE_MIN_CLIPPED, TONE_MIN_GAIN, toneFit, typicalGain, warpPlane } from './tone';
import { TraceInput } from './trace';
import { ExtractDiagnostics, WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Below this alignment NCC the template registration is not trusted and feature matching is tried too. */
const FEATURE_FALLBACK_NCC = 0.95;

/** Below this alignment NCC the registration found is refined once more from each search's result. */
const REFINE_AGAIN_BELOW = 0.99;

/** Local scale (original pixels per inspected pixel) of H around the inspected centre. */
function localScale(H: Homography, w: number, h: number): number {
  const cx = w / 2;
  const cy = h / 2;
  const [a0, b0] = applyH(H, cx, cy);
  const [a1, b1] = applyH(H, cx + 1, cy);
  const [a2, b2] = applyH(H, cx, cy + 1);
  return math.sqrt(math.abs((a1 - a0) * (b2 - b0) - (a2 - a0) * (b1 - b0)));
}

/** Whether H is a translation at the unresized scale (a plain crop). */
function isPlainCrop(H: Homography, unresized: number): boolean {
  return H[0] === unresized && H[4] === unresized && H[1] === 0 && H[3] === 0 && H[6] === 0 && H[7] === 0 && H[8] === 1;
}

/** Two registrations whose inspected corners land this close (working pixels) are one geometry. */
const SAME_GEOMETRY_PX = 0.5;

/** The largest distance between where A and B map a corner of the inspected image. */
function cornersApart(A: Homography, B: Homography, I: Plane): number {
  let worst = 0;
  for (const [x, y] of [[0, 0], [I.w - 1, 0], [I.w - 1, I.h - 1], [0, I.h - 1]]) {
    const [a, b] = applyH(A, x, y);
    const [c, d] = applyH(B, x, y);
    worst = math.max(worst, math.hypot(a - c, b - d));
  }
  return worst;
}

/** Cells per side of the smooth brightness that flatField divides out. */
const FLAT_CELLS = 8;

/** The plane divided by its brightness smoothed over 8 × 8 cells (a vignette's gain, the picture's own shading). */
function flatField(p: Plane): Plane {
  const small = resize(p, math.min(FLAT_CELLS, p.w), math.min(FLAT_CELLS, p.h));
  const d = new Float32Array(p.w * p.h);
  const sx = small.w / p.w;
  const sy = small.h / p.h;
  for (let y = 0; y < p.h; y++) {
    for (let x = 0; x < p.w; x++) {
      const m = sample(small, math.max(0, math.min(small.w - 1, (x + 0.5) * sx - 0.5)), math.max(0, math.min(small.h - 1, (y + 0.5) * sy - 0.5)));
      d[y * p.w + x] = (128 * p.d[y * p.w + x]) / (m + 8);
    }
  }
  return { w: p.w, h: p.h, d };
}

/** A geometry other than the global NCC's choice replaces it when its local alignment score is this much higher. */
const LOCAL_SCORE_MARGIN = 0.1;

/**
 * The chosen registration, or another geometry the searches found whose local alignment score (register.ts) is
 * clearly higher. Only asked when the global NCC is not convincing: above 0.95 it does not mislead, and the local
 * score of flat tiles would only add noise.
 */
function locallyBest(O: Plane, I: Plane, chosen: Registration, others: readonly Registration[]): Registration {
  const base = localAlignmentScore(O, I, chosen.H);
  let best = chosen;
  let bestScore = base;
  const seen: Homography[] = [chosen.H];
  for (const r of others) {
    if (seen.some((H) => cornersApart(H, r.H, I) < SAME_GEOMETRY_PX)) continue;
    seen.push(r.H);
    const score = localAlignmentScore(O, I, r.H);
    if (score >= base + LOCAL_SCORE_MARGIN && score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The original's geometry in the inspected image: the template search; when it is not convincing, local features
 * (mirror + any angle + scale + crop); when neither is, the template search again over the whole circle (slow, so
 * only here), and once more on both pictures flattened (flatField: a strong vignette). The best by alignment NCC,
 * whether trusted or not; below 0.95, another geometry found wins when its local score is clearly higher (locallyBest).
 * `unresized`: the scale of H for a copy cropped but not resized (the working scales' ratio; snapCrop).
 */
export async function findRegistration(planeO: Plane, planeI: Plane, unresized = 1): Promise<Registration | null> {
  let reg = register(planeO, planeI);
  // every search's result, for the second refinement below
  const found: Registration[] = reg ? [reg] : [];
  const keep = (r: Registration): void => {
    found.push(r);
    if (!reg || r.ncc > reg.ncc) reg = r;
  };
  if (!reg || reg.raw < FEATURE_FALLBACK_NCC) {
    // a page or a wide border around the picture (content-box.ts): the template search on the picture alone
    const box = contentBox(planeI);
    const inBox = box && register(planeO, cropPlane(planeI, box));
    if (box && inBox) {
      // box pixels are the inspected's pixels shifted by the box corner
      const H = mulH(inBox.H, Float64Array.from([1, 0, -box.x0, 0, 1, -box.y0, 0, 0, 1]));
      keep({ H, ncc: alignmentScore(planeO, planeI, H), raw: inBox.raw });
    }
  }
  if (!reg || reg.raw < FEATURE_FALLBACK_NCC) {
    const byFeatures = await featureRegister(planeO, planeI).catch(() => null);
    if (byFeatures) keep(byFeatures);
  }
  if (!reg || reg.raw < FEATURE_FALLBACK_NCC) {
    const swept = register(planeO, planeI, true);
    if (swept) keep(swept);
  }
  if (!reg || reg.raw < FEATURE_FALLBACK_NCC) {
    // a strong vignette: the template search again on both pictures divided by their smooth brightness
    const flat = register(flatField(planeO), flatField(planeI));
    if (flat) {
      // scored on the pictures themselves, like the other searches' results
      const ncc = alignmentScore(planeO, planeI, flat.H);
      keep({ H: flat.H, ncc, raw: ncc });
    }
  }
  if (reg && reg.ncc < REFINE_AGAIN_BELOW) {
    // The block matching once more, from where each search ended: its first pass starts a coarse candidate away and
    // matches only within its reach. A night photo's copy scaled by 1/1.32 was left at 1.18 by the template search
    // (NCC 0.907); refined again from there it reaches 1.32 (0.969), within a pixel of the true geometry, where
    // feature matching's 0.924, refined again, stays 31 px off. A 5 % keystone of the kite photo was left at 0.972
    // (not decoded) and reaches 0.997. 7–25 ms on a registration at 0.95 or more (no polish), 0.1–0.4 s below.
    // (once per geometry: the searches often end on the same one, and each refinement costs 0.1 s or more there)
    const refined: Homography[] = [];
    for (const r of found.slice()) {
      if (refined.some((H) => cornersApart(H, r.H, planeI) < SAME_GEOMETRY_PX)) continue;
      refined.push(r.H);
      const again = refineFrom(planeO, planeI, r.H);
      found.push(again);
      if (again.ncc > reg.ncc) reg = again;
    }
  }
  if (reg && reg.ncc < FEATURE_FALLBACK_NCC) {
    // still not convincing: the corners climbed on the alignment score (a keystone of smooth content)
    const byCorners = polishCorners(planeO, planeI, reg);
    if (byCorners.ncc > reg.ncc) reg = byCorners;
    // and the searches' other geometries judged tile by tile (a strong vignette misleads the global NCC)
    reg = locallyBest(planeO, planeI, reg, found);
  }
  // a same-size copy was registered from the identity (snapping would only cost time there)
  if (reg && planeO.w === planeI.w && planeO.h === planeI.h) return reg;
  const snapped = reg && snapSimilarity(planeO, planeI, snapCrop(planeO, planeI, reg, unresized));
  // a copy that fits inside the original may be a plain crop of it: that hypothesis searched directly, and kept
  // when it aligns at least as well (the simpler model wins a tie); not when the registration is one already
  if (snapped && isPlainCrop(snapped.H, unresized)) return snapped;
  const crop = cropRegistration(planeO, planeI, unresized, snapped ? snapped.ncc : -1);
  return crop && (!snapped || crop.ncc >= snapped.ncc) ? crop : snapped;
}

/**
 * Mean squared residual below which a copy is taken as lossless after the embedding: 2.5 times the mark's own
 * (TARGET_MSE), between the PNG crops of the low-key photo (2.4–6.5 levels²; a sub-pixel registration adds to the mark)
 * and its lossy copies (10.7 and more).
 */
const LOSSLESS_MSR = 2.5 * TARGET_MSE;

/**
 * Least share of black pixels (black in the original and in the inspected image) for them to be kept. The low-key
 * 3 % crops they made detectable had 31 % and 42 %; kept at 7–10 % (1.5–2 % crops of the astronaut, dark parts of
 * its centre) they lowered the confidence (one 1.5 % crop: detected at 0.93 without them, not detected with them).
 */
const MIN_BLACK_SHARE = 0.2;

/** Share of the compared pixels that are black in the inspected image and in the warped original. */
function blackShare(W: Float32Array, inspected: Float32Array, predicted: Float32Array): number {
  let black = 0;
  let count = 0;
  for (let k = 0; k < W.length; k++) {
    if (num.isNaN(predicted[k])) continue;
    count++;
    if (inspected[k] <= 0.5 && W[k] <= 0.5) black++;
  }
  return count ? black / count : 0;
}

/**
 * True when the inspected pixels away from both ends differ from the predicted original by little more than the
 * mark: nothing lossy (JPEG, a resize) came after the embedding. Measured on the low-key photo: crops saved as PNG
 * 2.4–6.5 levels², JPEG 50 / 30 and JPEG 42 then a crop 10.7–14.4. A lossy step turns the clipped half of the mark
 * into something else (a JPEG 42 then a crop: soft agreement 0.68 / 0.73 with the end pixels left out, 0.35 / 0.37
 * with them kept).
 */
function losslessCopy(W: Float32Array, inspected: Float32Array, predicted: Float32Array): boolean {
  let sum = 0;
  let count = 0;
  for (let k = 0; k < W.length; k++) {
    const v = inspected[k];
    const p = predicted[k];
    if (num.isNaN(p) || !(W[k] > 0.5 && W[k] < 254.5) || v <= 0.5 || v >= 254.5) continue;
    sum += (v - p) * (v - p);
    count++;
  }
  return count >= 64 && sum / count <= LOSSLESS_MSR;
}

/**
 * Half-width (fine cells) of the window whose mean is taken off the residual. A bias the photometric fits leave on a
 * flat area is not the mark (whose chips are random over a few cells) but adds to every cell there: a chain of 5 on
 * the black-frame photo (scale, flip, crop, contrast -40 %, JPEG) kept -0.8 levels on its frame, where the LUT's bin
 * held a few of the subject's edge pixels; decoded at 0.40 / 0.36 without the subject, 0.94 / 0.99 where the bias
 * was -0.1 (1.2 px away).
 */
export const DEBIAS_CELLS = 6;

/*
 * The per-pixel loops of registeredDecode live in small functions: V8 optimises those once, whereas a loop inside
 * that long async function started each call in the interpreter (on a 12 MP extract the LUT pass took 6 to 29 ms from
 * call to call instead of about 2).
 */

/** W mapped through the LUT, NaN where W is. */
function throughLut(W: Float32Array, lut: Float64Array): Float32Array {
  const out = new Float32Array(W.length);
  for (let k = 0; k < W.length; k++) out[k] = num.isNaN(W[k]) ? num.NaN : lutAt(lut, W[k]);
  return out;
}

/** P set to NaN where the inspected pixel is saturated (0 or 255), but for black pixels kept on black originals. */
function leaveOutSaturated(P: Float32Array, inspected: Float32Array, W: Float32Array, keepBlack: boolean): void {
  for (let k = 0; k < P.length; k++) {
    const v = inspected[k];
    if (v < 254.5 && v > 0.5) continue;
    if (keepBlack && v <= 0.5 && W[k] <= 0.5) continue;
    P[k] = num.NaN;
  }
}

/**
 * The residual I − lut(P), divided by the mark's local gain relative to the typical one (NaN below TONE_MIN_GAIN of
 * it) when a tone curve gave one; NaN where P is.
 */
function residualOf(I: Float32Array, P: Float32Array, lut: Float64Array, gain: Float32Array | null, gainMed: number): Float32Array {
  const r = new Float32Array(P.length);
  for (let k = 0; k < P.length; k++) {
    const p = P[k];
    if (num.isNaN(p)) {
      r[k] = num.NaN;
      continue;
    }
    r[k] = I[k] - lutAt(lut, p);
    if (gain) {
      const g = gain[k] / gainMed;
      if (!(g >= TONE_MIN_GAIN)) {
        r[k] = num.NaN;
        continue;
      }
      r[k] /= g;
    }
  }
  return r;
}

/**
 * Registered decoding: the original is reduced to the inspected scale, warped onto the inspected pixels, passed
 * through a fitted FIR filter and photometric LUT, and subtracted; the residual is matched-filtered with the same
 * FIR kernel and projected on the cells of each layer.
 */
export async function registeredDecode(
  O: LumaPlane,
  inspected: LumaPlane,
  H: Homography,
  key: WatermarkKey,
  loadRgb: () => Promise<RgbPlanes | null>,
  diagnostics: ExtractDiagnostics | null,
  traceOut: { input: TraceInput | null } | null = null,
  syncOnMark = true,
): Promise<DecodedPayload | null> {
  const I0 = inspected;
  let I = inspected;
  const iw = I.width;
  const ih = I.height;
  // H maps inspected index coordinates to original index coordinates.
  const sigma = localScale(H, iw, ih);
  let src: Plane = { w: O.width, h: O.height, d: O.data };
  if (sigma > 1.3) src = resize(src, math.max(8, math.round(O.width / sigma)), math.max(8, math.round(O.height / sigma)));
  // a one-pixel-wide original carries no cell to decode (and the samplers need two pixels)
  if (src.w < 2 || src.h < 2) return null;
  const warped = warpCubicKernel(src, O.width, O.height, H, iw, ih);
  const { qx, qy } = warped;
  let W = warped.W;
  // photometric LUT first (brightness, contrast, gamma, clipping), then the FIR filter, then a final LUT
  let lut1 = fitLut(W, I.data);
  if (!lut1) return null;
  // a canvas filled around a rotated crop shows something else than the original: left out before any fit
  if (maskCanvasFill(W, I.data, iw, ih, lut1) > 0) {
    lut1 = fitLut(W, I.data);
    if (!lut1) return null;
  }
  // a vignette (a gain that varies across the picture): the inspected image divided by a smooth gain field, with the
  // LUT that goes with it (local-gain.ts). A colour toning (sepia): the original's colour channels mixed as the edit
  // did (colour-mix.ts), then the field again.
  let rgbLoaded: Promise<RgbPlanes | null> | null = null;
  const rgbOnce = (): Promise<RgbPlanes | null> => (rgbLoaded ??= loadRgb());
  const fitField = (): void => {
    const found = lut1 && vignetteField(W, I.data, iw, ih, lut1);
    if (!found) return;
    I = { ...I, data: found.divided };
    lut1 = found.lut;
  };
  fitField();
  if (lutResidualMse(W, I.data, lut1) >= MIX_MIN_MSE) {
    const rgb = await rgbOnce();
    const mixed = rgb && colourMix(rgb, W, I.data, iw, ih, sigma, qx, qy, lut1);
    const lut = mixed && fitLut(mixed, I.data);
    if (mixed && lut) {
      W = mixed as Float32Array<ArrayBuffer>;
      lut1 = lut;
      fitField();
    }
  }
  // other pixels that show something else than the original (a caption, a sticker) would bend the fits below: left
  // out, and the LUT fitted again without them (after the gain field, which would otherwise take a vignette's dark
  // corners for foreign blocks)
  if (maskForeign(W, I.data, iw, ih, lut1) > 0) {
    lut1 = fitLut(W, I.data);
    if (!lut1) return null;
  }
  let P1: Float32Array = throughLut(W, lut1);
  // an edit that clipped part of the picture: per-channel tone curve and the mark's local gain (tone.ts)
  let gain: Float32Array | null = null;
  if (clippedShare(W, I0.data) >= TONE_MIN_CLIPPED) {
    const rgb = await rgbOnce();
    const tone = rgb ? toneFit(rgb, W, I.data, iw, ih, sigma, qx, qy, lut1) : null;
    if (rgb && tone) {
      const pg = predictTone(rgb, tone);
      P1 = warpPlane(pg.p, rgb, sigma, qx, qy, W);
      gain = warpPlane(pg.gain, rgb, sigma, qx, qy, W);
    }
  }
  // saturated inspected pixels carry no mark (an edit clipped them), except black ones of a lossless copy where the
  // original was black too, when they are many: the embedding itself clipped the mark there, so such a pixel shows
  // the mark's clipped half (0 where the mark was negative, above where it was positive). A low-key grade has a fifth
  // of its pixels at 0, a 3 % crop of it up to 44 %: leaving them out left too few cells.
  const keepBlack = losslessCopy(W, I0.data, P1) && blackShare(W, I0.data, P1) >= MIN_BLACK_SHARE;
  const Iu = new Float32Array(I.data);
  leaveOutSaturated(P1, I0.data, W, keepBlack);
  const fitted = fitFir(P1, Iu, iw, ih);
  // an edit keeps flat content flat (the LUT already took the photometry), so a filter whose taps do not sum to
  // about 1 was fitted on too little texture (a crop of mostly flat black); its matched filter would even invert the
  // mark when the sum is negative
  const fir = fitted && firGain(fitted) >= MIN_FIR_GAIN ? fitted : null;
  const P = fir ? applyFir(P1, iw, ih, fir, false) : P1;
  const lut = fitLut(P, I.data);
  if (!lut) return null;
  const gainMed = gain ? typicalGain(gain) : 1;
  let r: Float32Array = residualOf(I.data, P, lut, gain, gainMed);
  const dims = gridDims(O.fullWidth, O.fullHeight);
  subtractLocalMean(r, iw, ih, math.max(2, math.round((DEBIAS_CELLS * fineCellSize(O.fullWidth, O.fullHeight) * (O.width / O.fullWidth)) / sigma)));
  if (clipResidual(r) < 64) return null;
  const r0 = r;
  if (fir) r = applyFir(r, iw, ih, fir, true);
  const layers = buildLayers(key, dims);
  const act = cellActivity(O.data, O.width, O.height, dims[0][0], dims[0][1], 1);
  const amps = amplitudeMaps(act, dims);
  const cellE: Float32Array[] = [];
  const cellV: Float32Array[] = [];
  const zs = layers.map((layer, l) => {
    const { e, v } = cellObservations(layer, qx, qy, r);
    cellE.push(e);
    cellV.push(v);
    return zFromCells(layer, amps[l], e, v);
  });
  // a registration right on the picture's content but off across its flat parts: polished on the mark's excess,
  // and everything above done once more at the geometry found (mark-sync.ts; these observations are not decoded)
  if (syncOnMark && sigma <= MARK_SYNC_MAX_SCALE) {
    const synced = polishOnMark(H, iw, ih, { layers, amps, width: O.width, height: O.height }, r, { e: cellE, v: cellV });
    // the original's colour planes, if this pass loaded them, are not decoded again
    if (synced) return registeredDecode(O, inspected, synced, key, rgbOnce, diagnostics, traceOut, false);
  }
  // candidate tracing (trace.ts) reads the same observations, and the cells for the mixing analysis
  if (traceOut) traceOut.input = { zs, cells: { layers, amps, e: cellE, v: cellV } };
  if (diagnostics) diagnostics.registeredDecoding = { H, scale: sigma, fir: fir !== null, firGain: fitted ? firGain(fitted) : 1, zs };
  // the joint estimate is computed once, when the layers alone are weak (a conjugate-gradient solve); candidate
  // tracing then tests it too
  let joint: Float64Array | null | undefined;
  const decodeAll = (list: number): DecodedPayload | null => {
    const first = decodeLayers(zs, key, list);
    if (first && confidenceOf(first) >= DETECT_THRESHOLD) return first;
    // weak: joint least-squares estimate of the coded bits (cancels the cross-talk between neighbouring cells and layers)
    if (joint === undefined) {
      joint = jointSoft(layers, amps, qx, qy, r0, fir, iw, ih);
      if (joint && diagnostics?.registeredDecoding) diagnostics.registeredDecoding.joint = joint;
      if (joint && traceOut?.input) traceOut.input.estimate = joint;
    }
    let best = first;
    if (joint) {
      const d = decodeSoft(joint, key, list);
      if (d.tagOk && (!best || d.agreement > best.agreement)) best = d;
      if (best && confidenceOf(best) >= DETECT_THRESHOLD) return best;
    }
    // still weak: the layers summed with weights from their own reliability (one more decoding attempt)
    const reweighted = decodeSoft(reweigh(zs), key, list);
    return reweighted.tagOk && (!best || reweighted.agreement > best.agreement) ? reweighted : best;
  };
  // the most likely code word of each combination first (what decoded before list decoding keeps its result); the
  // lists only when none of them passed the tag convincingly (their first code words are the same ones again)
  const plain = decodeAll(1);
  if (plain && confidenceOf(plain) >= DETECT_THRESHOLD) return plain;
  const listed = decodeAll(LIST_SIZE);
  return listed && (!plain || listed.agreement > plain.agreement) ? listed : plain;
}
