import { createRequire } from 'node:module';
import type * as OpenCv from '@techstark/opencv-js';
import { fillWithEdge, Homography, mulH, Plane } from './image';

const math = Math;
import { refineFrom, Registration } from './register';

/**
 * Registration by local features (issue 16): ORB keypoints of the original and of the inspected image (as is and
 * mirrored left-right), matched by Hamming distance with Lowe's ratio test, a homography by RANSAC (OpenCV), then
 * the block-matching refinement of register.ts. ORB is rotation- and scale-invariant, so it finds what the coarse
 * template search misses: a mirror, an arbitrary angle on an expanded canvas, a scale of 0.5–0.9 and a crop
 * together. It only proposes a geometry: the caller keeps it when its alignment NCC beats the other registration,
 * and decoding (keyed tag, threshold) decides as before, so it cannot create a detection by itself.
 */

type Cv = typeof OpenCv;

const FEATURES = 3000;
const RATIO = 0.8;
const MIN_INLIERS = 8;
/** Waiting for the OpenCV WebAssembly runtime (about 0.4 s on first use). */
const INIT_TIMEOUT_MS = 30_000;

let loading: Promise<{ cv: Cv }> | null = null;

/** OpenCV, loaded on first use (12 MB of WebAssembly: processes that never need it never load it). */
function opencv(): Promise<{ cv: Cv }> {
  loading ??= new Promise((resolve, reject) => {
    // required, not imported: the module object is thenable while it initialises, so it must never be awaited
    const cv = createRequire(__filename)('@techstark/opencv-js') as Cv;
    const started = Date.now();
    const poll = (): void => {
      if (typeof cv.Mat === 'function') resolve({ cv });
      else if (Date.now() - started > INIT_TIMEOUT_MS) reject(new Error('OpenCV did not initialise'));
      else setTimeout(poll, 10);
    };
    poll();
  });
  return loading;
}

/**
 * Linear stretch of the luma range (0.5th to 99.5th percentile, outside a filled canvas) onto 0..255: ORB's corner
 * test has a fixed threshold in levels, so a dark picture (a night sky, values 2..66) gave too few keypoints to
 * match. Pictures that already span the range are hardly changed.
 */
function stretch(p: Plane): { lo: number; gain: number } {
  // a bright fill's edge would set the top percentile of a dark picture
  const fill = fillWithEdge(p.d, p.w, p.h);
  const hist = new Uint32Array(256);
  let n = 0;
  for (let k = 0; k < p.d.length; k++) {
    if (fill[k]) continue;
    const v = p.d[k];
    hist[v < 0 ? 0 : v > 255 ? 255 : Math.floor(v)]++;
    n++;
  }
  let lo = 0;
  let hi = 255;
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v];
    if (acc <= 0.005 * n) lo = v;
    if (acc < 0.995 * n) hi = v + 1;
  }
  return hi - lo >= 16 ? { lo, gain: math.min(4, 255 / (hi - lo)) } : { lo: 0, gain: 1 };
}

function toMat(cv: Cv, p: Plane, mirrored: boolean): OpenCv.Mat {
  const m = new cv.Mat(p.h, p.w, cv.CV_8UC1);
  const out = m.data;
  const { lo, gain } = stretch(p);
  for (let y = 0; y < p.h; y++) {
    const row = y * p.w;
    for (let x = 0; x < p.w; x++) {
      const v = (p.d[row + (mirrored ? p.w - 1 - x : x)] - lo) * gain;
      out[row + x] = v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
    }
  }
  return m;
}

/** The parts of OpenCV's match and keypoint lists used here (its declarations type them as `any`). */
interface DMatch {
  queryIdx: number;
  trainIdx: number;
  distance: number;
}
interface MatchPairs {
  size(): number;
  get(i: number): { size(): number; get(j: number): DMatch };
}
interface KeyPoints {
  get(i: number): { pt: { x: number; y: number } };
}

interface Features {
  keypoints: OpenCv.KeyPointVector;
  descriptors: OpenCv.Mat;
}

function detect(cv: Cv, orb: OpenCv.ORB, image: OpenCv.Mat): Features {
  const keypoints = new cv.KeyPointVector();
  const descriptors = new cv.Mat();
  const noMask = new cv.Mat();
  orb.detectAndCompute(image, noMask, keypoints, descriptors);
  noMask.delete();
  return { keypoints, descriptors };
}

/** Inspected → original homography from ratio-tested matches, with its RANSAC inlier count. */
function match(cv: Cv, original: Features, inspected: Features): { H: Homography; inliers: number } | null {
  if (original.descriptors.rows < MIN_INLIERS || inspected.descriptors.rows < MIN_INLIERS) return null;
  const matcher = new cv.BFMatcher(cv.NORM_HAMMING as number, false);
  const knn = new cv.DMatchVectorVector();
  const pairs = knn as unknown as MatchPairs;
  const inspectedPoints = inspected.keypoints as unknown as KeyPoints;
  const originalPoints = original.keypoints as unknown as KeyPoints;
  const src: number[] = [];
  const dst: number[] = [];
  try {
    matcher.knnMatch(inspected.descriptors, original.descriptors, knn, 2);
    for (let i = 0; i < pairs.size(); i++) {
      const pair = pairs.get(i);
      if (pair.size() < 2) continue;
      const best = pair.get(0);
      if (best.distance < RATIO * pair.get(1).distance) {
        const p = inspectedPoints.get(best.queryIdx).pt;
        const q = originalPoints.get(best.trainIdx).pt;
        src.push(p.x, p.y);
        dst.push(q.x, q.y);
      }
    }
  } finally {
    knn.delete();
    matcher.delete();
  }
  if (src.length / 2 < MIN_INLIERS) return null;
  const srcMat = cv.matFromArray(src.length / 2, 1, cv.CV_32FC2, src);
  const dstMat = cv.matFromArray(dst.length / 2, 1, cv.CV_32FC2, dst);
  const mask = new cv.Mat();
  try {
    const h = cv.findHomography(srcMat, dstMat, cv.RANSAC as number, 3, mask);
    if (h.empty()) {
      h.delete();
      return null;
    }
    const H = Float64Array.from(h.data64F);
    h.delete();
    let inliers = 0;
    for (let i = 0; i < mask.rows; i++) inliers += mask.data[i] ? 1 : 0;
    return inliers >= MIN_INLIERS ? { H, inliers } : null;
  } finally {
    srcMat.delete();
    dstMat.delete();
    mask.delete();
  }
}

/** A plausible edit: orientation-preserving or mirrored similarity-like map, scale 1/8…8, small perspective. */
function plausible(H: Homography): boolean {
  const det = (H[0] * H[4] - H[1] * H[3]) / (H[8] * H[8]);
  return Number.isFinite(det) && Math.abs(det) > 1 / 64 && Math.abs(det) < 64 && Math.abs(H[6]) < 0.01 && Math.abs(H[7]) < 0.01;
}

/** The feature-based registration of I onto O, or null when nothing convincing is found. */
export async function featureRegister(O: Plane, I: Plane): Promise<Registration | null> {
  const { cv } = await opencv();
  const orb = new cv.ORB(FEATURES);
  const mats: OpenCv.Mat[] = [];
  const features: Features[] = [];
  try {
    const om = toMat(cv, O, false);
    mats.push(om);
    const of = detect(cv, orb, om);
    features.push(of);
    let best: { H: Homography; inliers: number } | null = null;
    for (const mirrored of [false, true]) {
      const im = toMat(cv, I, mirrored);
      mats.push(im);
      const inf = detect(cv, orb, im);
      features.push(inf);
      const found = match(cv, of, inf);
      if (!found) continue;
      // mirrored: p' = (w − 1 − x, y) first, then the matched homography
      const H = mirrored ? mulH(found.H, Float64Array.from([-1, 0, I.w - 1, 0, 1, 0, 0, 0, 1])) : found.H;
      if (plausible(H) && (!best || found.inliers > best.inliers)) best = { H, inliers: found.inliers };
    }
    if (!best) return null;
    // the refinement scores the proposal first and keeps only steps that do not lower that score (beyond 0.002)
    return refineFrom(O, I, best.H);
  } finally {
    orb.delete();
    for (const f of features) {
      f.keypoints.delete();
      f.descriptors.delete();
    }
    for (const m of mats) m.delete();
  }
}
