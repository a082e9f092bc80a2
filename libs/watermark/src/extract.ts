/**
 * Image watermark extraction: registered decoding with the original when one is given (registered-decode.ts), blind
 * decoding otherwise or when that fails (blind-decode.ts), and the evidence a detection rests on.
 */
import { blindDecode } from './blind-decode';
import { confidenceOf, DETECT_THRESHOLD } from './cell-decode';
import { checkInput, decodeLuma, decodeRgb, isWatermarkError } from './codec';
import { HeaderInfo } from './format';
import { applyH, Homography, invertH } from './image';
import { CODED_BITS, DecodedPayload, LIST_SIZE, PAYLOAD_BITS, TAG_BITS } from './payload';
import { fineCellSize } from './pattern';
import { findRegistration, registeredDecode } from './registered-decode';
import { placeOnMark, PLACEMENT_BELOW_NCC } from './mark-placement';
import { RgbPlanes } from './tone';
import { MAX_CANDIDATES, traceColluders, TraceInput } from './trace';
import { ColluderTrace, DEFAULT_MAX_PIXELS, DetectionEvidence, ExtractDiagnostics, ExtractOptions, ExtractResult, FoundTransform } from './types';

export { DETECT_THRESHOLD } from './cell-decode';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/**
 * Code words one extraction may test against the tag at most (see README, false-positive argument): 3 layer
 * combinations + 1 joint + 1 reweighted combination (registered), each a list of LIST_SIZE code words; 6 size
 * guesses x 3 combinations (blind) and 2 x 3 (edge-weighted blind pass), one code word each.
 */
export const DECODING_ATTEMPTS = 5 * LIST_SIZE + 24;
/** Design bound on a false match per extraction: each attempt passes the 40-bit keyed check with probability 2^-40. */
export const FALSE_MATCH_BOUND = DECODING_ATTEMPTS * 2 ** -TAG_BITS;
function result(d: DecodedPayload | null, method: 'registered' | 'blind', transform?: FoundTransform): ExtractResult | null {
  if (!d || !d.tagOk) return null;
  const confidence = confidenceOf(d);
  const evidence: DetectionEvidence = {
    payloadBits: PAYLOAD_BITS,
    checkBits: TAG_BITS,
    checkBitsMatched: TAG_BITS,
    codedBits: CODED_BITS,
    codedBitsAgreeing: d.codedAgree,
    softAgreement: confidence,
    threshold: DETECT_THRESHOLD,
    decodingAttempts: DECODING_ATTEMPTS,
    chanceBound: FALSE_MATCH_BOUND,
    ...(transform ? { transform } : {}),
  };
  return { status: confidence >= DETECT_THRESHOLD ? 'detected' : 'inconclusive', payload: d.payload, confidence, method, evidence };
}

/**
 * The registered result once candidate tracing ran (issue 36). Two or more recipients accused (the decoded payload,
 * when detected, counts as one of them): `detected` without a payload, the evidence listing them. One accused and
 * nothing else detected: `detected` with that payload. None: the ordinary result, with the trace attached.
 */
function withTrace(r: ExtractResult | null, trace: ColluderTrace, transform: FoundTransform): ExtractResult {
  const payloads = new Set(trace.accused.map((a) => a.payload));
  const decoded = r && r.status === 'detected' && r.payload !== undefined ? r.payload : null;
  if (payloads.size === 0 || (decoded !== null && payloads.size === 1 && payloads.has(decoded))) {
    const base = r ?? { status: 'not_detected' as const, confidence: 0, method: 'registered' as const };
    return { ...base, ...(base.evidence && trace.accused.length ? { evidence: { ...base.evidence, colluders: trace } } : {}), trace };
  }
  if (decoded !== null) payloads.add(decoded);
  const best = trace.accused[0];
  // evidence of the ordinary decoding when it detected; otherwise the tracing's own (no code word was decoded)
  const evidence: DetectionEvidence = r?.status === 'detected' && r.evidence
    ? { ...r.evidence, colluders: trace }
    : {
        payloadBits: PAYLOAD_BITS,
        checkBits: TAG_BITS,
        checkBitsMatched: 0,
        codedBits: CODED_BITS,
        codedBitsAgreeing: 0,
        softAgreement: best.correlation,
        threshold: DETECT_THRESHOLD,
        decodingAttempts: DECODING_ATTEMPTS,
        chanceBound: FALSE_MATCH_BOUND,
        transform,
        colluders: trace,
      };
  const confidence = decoded !== null && r ? r.confidence : math.min(1, best.correlation);
  if (payloads.size === 1) return { status: 'detected', payload: best.payload, confidence, method: 'registered', evidence, trace };
  return { status: 'detected', confidence, method: 'registered', evidence, trace };
}

/**
 * The edit registration found, in full-resolution terms. H maps inspected working pixels to original working
 * pixels; the original was decoded at scale `so`, the inspected at `si`.
 */
export function describeTransform(H: Homography, O: { width: number; height: number }, I: { width: number; height: number }, so: number, si: number): FoundTransform {
  // linear part of original -> inspected at the centre of the inspected image (y axis down, as stored)
  const cx = I.width / 2;
  const cy = I.height / 2;
  const [x0, y0] = applyH(H, cx, cy);
  const [x1, y1] = applyH(H, cx + 1, cy);
  const [x2, y2] = applyH(H, cx, cy + 1);
  // A: inspected -> original; B = A^-1: original -> inspected
  const a = x1 - x0;
  const b = x2 - x0;
  const c = y1 - y0;
  const d = y2 - y0;
  const det = a * d - b * c;
  let B = [d / det, -b / det, -c / det, a / det];
  const mirrored = det < 0;
  // a mirror image: B = B' * diag(-1, 1), the original mirrored left-right first
  if (mirrored) B = [-B[0], B[1], -B[2], B[3]];
  // on screen (y down) a counter-clockwise turn by t maps (1, 0) to (cos t, -sin t)
  let rotationDeg = math.round((math.atan2(-B[2], B[0]) * 1800) / math.PI) / 10;
  if (rotationDeg <= -180) rotationDeg += 360;
  // a turn of -0.01 degree rounds to -0: reported as 0
  rotationDeg = rotationDeg || 0;
  const scale = math.sqrt(math.abs(1 / det)) * (so / si);
  // share of the original (sampled on a grid) that lands inside the inspected image
  const Hi = invertH(H);
  let inside = 0;
  const n = 48;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const [u, v] = applyH(Hi, ((i + 0.5) / n) * O.width, ((j + 0.5) / n) * O.height);
      if (u >= 0 && v >= 0 && u <= I.width && v <= I.height) inside++;
    }
  }
  const perspective = math.abs(H[6]) * I.width + math.abs(H[7]) * I.height > 0.01;
  return { rotationDeg, scale: math.round(scale * 1000) / 1000, mirrored, originalAreaVisible: math.round((inside / (n * n)) * 100) / 100, perspective };
}

/**
 * Working scales of a registered extraction: the original's brings its fine cells to about 4 pixels (`s`), the
 * inspected image's is at most that and keeps it within 8 MP (`si`). Registrations map inspected working pixels to
 * original working pixels.
 */
export function workingScales(original: { width: number; height: number }, inspected: { width: number; height: number }): { s: number; si: number } {
  const s = math.min(1, 4 / fineCellSize(original.width, original.height));
  return { s, si: math.min(1, s, math.sqrt(8_000_000 / (inspected.width * inspected.height))) };
}

export async function extractImage(inspected: Buffer, original: Buffer | null, options: ExtractOptions): Promise<ExtractResult> {
  if (!options.diagnostics) return extract(inspected, original, options, null);
  // filled in as the extraction goes (each extraction its own, so concurrent extractions do not mix)
  const diagnostics: ExtractDiagnostics = { registration: null, registeredDecoding: null };
  const r = await extract(inspected, original, options, diagnostics);
  return { ...r, diagnostics };
}

async function extract(inspected: Buffer, original: Buffer | null, options: ExtractOptions, diagnostics: ExtractDiagnostics | null): Promise<ExtractResult> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  let ih: HeaderInfo;
  try {
    ih = checkInput(inspected, maxPixels);
  } catch (e) {
    if (isWatermarkError(e)) return { status: 'unsupported', confidence: 0, method: 'none' };
    return { status: 'error', confidence: 0, method: 'none' };
  }
  let registeredTried = false;
  let weak: ExtractResult | null = null;
  // candidate tracing's outcome when it accused nobody (kept on whatever result follows)
  let tested: ColluderTrace | null = null;
  const withTested = (r: ExtractResult): ExtractResult => (tested ? { ...r, trace: tested } : r);
  try {
    if (original) {
      // The original is an input like the inspected copy: a header refused or pixels that cannot be decoded (empty,
      // truncated: a WatermarkError) end as `unsupported` in the catch below, whichever of the two files it was.
      // Until the outside review a corrupt original was `error`, which the API keeps for a failure of detection itself.
      const oh = checkInput(original, maxPixels);
      const { s, si } = workingScales(oh, ih);
      // both decoded at once (each on a thread of sharp's pool); the inspected image's failure is read below, and
      // only noted here for the case where the original's is thrown first
      const decodingI = decodeLuma(inspected, ih, si);
      decodingI.catch(() => undefined);
      const O = await decodeLuma(original, oh, s);
      const I = await decodingI;
      const planeO = { w: O.width, h: O.height, d: O.data };
      const planeI = { w: I.width, h: I.height, d: I.data };
      // H maps inspected working pixels to original working pixels: a copy cropped but not resized has scale s / si
      const found = await findRegistration(planeO, planeI, s / si);
      // a registration that found nothing of the picture (a crop of its flat part): the crop's place searched on the
      // mark itself, whose geometry then replaces the registration's (mark-placement.ts)
      const placed = !found || found.ncc < PLACEMENT_BELOW_NCC ? placeOnMark(O, I, options.key, s / si, found?.H ?? null) : null;
      const reg = placed ? { H: placed, ncc: found?.ncc ?? 0 } : found;
      if (diagnostics) diagnostics.registration = reg && { H: reg.H, ncc: reg.ncc, placedOnMark: placed !== null };
      // Every registration found is decoded, however low its alignment NCC: the geometry is chosen without looking at
      // the mark, so a wrong one only decodes noise, and the false-match bound already counts the registered trials
      // (README, false-positive argument). Until the sixth pass only NCC >= 0.6 was decoded; a dark copy whose
      // geometry was right within a pixel at 0.58 (the low-key chain of 5) was then never traced.
      if (reg) {
        registeredTried = true;
        const loadRgb = (): Promise<RgbPlanes | null> => decodeRgb(original, oh, s).catch(() => null);
        const candidates = options.candidates ?? [];
        const traceOut: { input: TraceInput | null } | null = candidates.length > 0 ? { input: null } : null;
        const transform = describeTransform(reg.H, O, I, s, si);
        const r = result(await registeredDecode(O, I, reg.H, options.key, loadRgb, diagnostics, traceOut), 'registered', transform);
        if (diagnostics && traceOut) diagnostics.traceInput = traceOut.input;
        if (traceOut?.input) {
          const trace = traceColluders(traceOut.input, candidates.slice(0, MAX_CANDIDATES), options.key, FALSE_MATCH_BOUND);
          const traced = withTrace(r, trace, transform);
          if (traced.status === 'detected') return traced;
          tested = trace;
        }
        if (r && r.status === 'detected') return r;
        weak = r;
      }
    }
    const blindScale = math.min(1, math.sqrt(2_000_000 / (ih.width * ih.height)));
    const Ib = await decodeLuma(inspected, ih, blindScale);
    let bd = blindDecode(Ib, options.key, false);
    if (!bd || confidenceOf(bd) < DETECT_THRESHOLD) {
      // text scans and other edge-dominated images: edge-weighted cell means (scale guesses 1 and 1/2 only)
      const rb = blindDecode(Ib, options.key, true);
      if (rb && (!bd || rb.agreement > bd.agreement)) bd = rb;
    }
    const r = result(bd, 'blind');
    if (r && (r.status === 'detected' || !weak || r.confidence > weak.confidence)) return withTested(r);
    if (weak) return withTested(weak);
    return withTested({ status: 'not_detected', confidence: 0, method: registeredTried ? 'registered' : 'blind' });
  } catch (e) {
    // WatermarkError is thrown only for the files themselves (format, colour mode, pixel limit, decoding); anything
    // else failed inside the detection
    if (isWatermarkError(e)) return { status: 'unsupported', confidence: 0, method: 'none' };
    return { status: 'error', confidence: 0, method: 'none' };
  }
}
