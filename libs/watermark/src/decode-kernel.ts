import { DECODE_KERNEL_WASM_BASE64 } from './decode-kernel.wasm';
import type { Plane } from './image';
import { ensureMemory, layout } from './wasm-pool';

/** Compiled once per process. */
const decodeKernelModule = new WebAssembly.Module(Buffer.from(DECODE_KERNEL_WASM_BASE64, 'base64'));

/** Start of the memory this module manages. */
const BASE = 1024;
/** The kernel's scratch powers hold this degree at most (MAX_DEGREE in assembly/decode-kernel.ts). */
const MAX_DEGREE = 8;

type NormalEquationsFn = (W: number, I: number, w: number, h: number, step: number, lut: number, bins: number, cx: number, cy: number, sc: number, degree: number, ti: number, tj: number, m: number, A: number, b: number, saturated: number, scratch: number) => void;
type FirNormalEquationsFn = (W: number, I: number, w: number, h: number, step: number, A: number, b: number, row: number) => number;
type ApplyFirFn = (W: number, w: number, h: number, coef: number, offs: number, out: number, off: number, sumK: number, bias: number) => void;
type WarpCubicFn = (src: number, sw: number, sh: number, H: number, ow: number, oh: number, rx: number, ry: number, iw: number, ih: number, qx: number, qy: number, W: number) => void;
type NccSearchFn = (O: number, ow: number, oh: number, tw: number, th: number, off: number, t: number, n: number, out: number, scratch: number) => void;
type AlignedSumsFn = (O: number, ow: number, oh: number, I: number, iw: number, ih: number, H: number, step: number, fill: number, tiles: number, out: number) => void;
type BlockScoresFn = (win: number, ww: number, S: number, off: number, patch: number, count: number, n: number, ss: number, scores: number, scratch: number) => void;
type AccumulateCellsFn = (nx: number, ny: number, u: number, v: number, r: number, count: number, p: number, w1: number, w2: number, r2: number) => void;
type JointPixelsFn = (n: number, nx: number, cc: number, fx: number, fy: number, cf: number, bit: number, plane: number, out: number) => void;
type FirConvolveFn = (x: number, w: number, h: number, coef: number, offs: number, out: number) => void;
type WeighPlaneFn = (m: number, W: number, n: number) => void;

interface DecodeKernel {
  memory: WebAssembly.Memory;
  normalEquations: NormalEquationsFn;
  firNormalEquations: FirNormalEquationsFn;
  applyFir: ApplyFirFn;
  accumulateCells: AccumulateCellsFn;
  warpCubic: WarpCubicFn;
  nccSearch: NccSearchFn;
  alignedSums: AlignedSumsFn;
  blockScores: BlockScoresFn;
  jointSynth: JointPixelsFn;
  jointProject: JointPixelsFn;
  firConvolve: FirConvolveFn;
  weighPlane: WeighPlaneFn;
}

/**
 * One instance per process: every call below is synchronous, so no two uses can overlap. Its memory keeps the
 * largest planes it was given (three f32 planes of the working size: about 5 MB for a 12 MP original), up to
 * RETAIN_BYTES: an instance grown beyond (a large copy of a small original is worked at up to 8 MP) is dropped after
 * its call, as WasmPool does.
 */
let instance: DecodeKernel | null = null;
const RETAIN_BYTES = 64 * 1024 * 1024;

/** Bytes of WebAssembly memory this module keeps between calls (0 when it keeps no instance). */
export function retainedKernelBytes(): number {
  return instance?.memory.buffer.byteLength ?? 0;
}

/** Reads a call's results (copies, before the instance may be dropped). */
function finish<T>(k: DecodeKernel, read: () => T): T {
  const out = read();
  if (k.memory.buffer.byteLength > RETAIN_BYTES && instance === k) instance = null;
  return out;
}

/**
 * The instance, with its memory laid out from BASE for arrays of the given byte sizes (64-byte aligned): their
 * offsets, in order. Views of the memory must be taken after this call (it may grow the memory).
 */
function kernelWith(bytes: number[]): { k: DecodeKernel; at: number[] } {
  instance ??= new WebAssembly.Instance(decodeKernelModule, {}).exports as unknown as DecodeKernel;
  const { at, end } = layout(BASE, bytes);
  ensureMemory(instance.memory, end);
  return { k: instance, at };
}

/** Polynomial terms u^ti[r] · v^tj[r] · lut(W) and the planes they are fitted on (see local-gain.ts). */
export interface PolyFitInput {
  W: Float32Array;
  I: Float32Array;
  w: number;
  h: number;
  step: number;
  lut: Float64Array;
  cx: number;
  cy: number;
  sc: number;
  degree: number;
  ti: Int32Array;
  tj: Int32Array;
  saturated: number;
}

/**
 * The normal equations of the polynomial gain field, accumulated in WebAssembly (the same sums, in the same order,
 * as the JavaScript loop they replaced): b, and A's upper triangle (c ≥ r; the rest is left at 0).
 */
export function polyNormalEquations(p: PolyFitInput): { A: Float64Array; b: Float64Array } {
  const m = p.ti.length;
  const n = p.w * p.h;
  if (p.degree > MAX_DEGREE || p.tj.length !== m || p.W.length < n || p.I.length < n) throw new Error('polyNormalEquations: bad input');
  const { k, at } = kernelWith([4 * n, 4 * n, 8 * p.lut.length, 4 * m, 4 * m, 8 * m * m, 8 * m, 8 * (2 * (MAX_DEGREE + 1) + m)]);
  const [W, I, lut, ti, tj, A, b, scratch] = at;
  const buffer = k.memory.buffer;
  new Float32Array(buffer, W, n).set(p.W.subarray(0, n));
  new Float32Array(buffer, I, n).set(p.I.subarray(0, n));
  new Float64Array(buffer, lut, p.lut.length).set(p.lut);
  new Int32Array(buffer, ti, m).set(p.ti);
  new Int32Array(buffer, tj, m).set(p.tj);
  const As = new Float64Array(buffer, A, m * m).fill(0);
  const bs = new Float64Array(buffer, b, m).fill(0);
  k.normalEquations(W, I, p.w, p.h, p.step, lut, p.lut.length, p.cx, p.cy, p.sc, p.degree, ti, tj, m, A, b, p.saturated, scratch);
  return finish(k, () => ({ A: As.slice(), b: bs.slice() }));
}

/** Taps of fir.ts's 5 x 5 filter plus its bias. */
const FIR_UNKNOWNS = 26;

/**
 * fir.ts's fitFir sums: the normal equations of the 5 x 5 FIR filter plus bias between W and I over every `step`-th
 * pixel of every `step`-th row (b, and A's upper triangle), and the number of samples.
 */
export function firNormalEquations(W: Float32Array, I: Float32Array, w: number, h: number, step: number): { A: Float64Array; b: Float64Array; count: number } {
  const n = w * h;
  const u = FIR_UNKNOWNS;
  if (W.length < n || I.length < n) throw new Error('firNormalEquations: bad input');
  const { k, at } = kernelWith([4 * n, 4 * n, 8 * u * u, 8 * u, 8 * u]);
  const [Wa, Ia, A, b, row] = at;
  const buffer = k.memory.buffer;
  new Float32Array(buffer, Wa, n).set(W.subarray(0, n));
  new Float32Array(buffer, Ia, n).set(I.subarray(0, n));
  const As = new Float64Array(buffer, A, u * u).fill(0);
  const bs = new Float64Array(buffer, b, u).fill(0);
  const count = k.firNormalEquations(Wa, Ia, w, h, step, A, b, row);
  return finish(k, () => ({ A: As.slice(), b: bs.slice(), count }));
}

/**
 * The 5 x 5 filter's taps as offsets into a plane w wide, in tap order (rows of dx = −2…2 for dy = −2…2), negated
 * for the adjoint (`flip`): how applyFirKernel and the joint operator read them.
 */
export function firTapOffsets(w: number, flip: boolean): Int32Array {
  const offs = new Int32Array(25);
  let j = 0;
  for (let dy = -2; dy <= 2; dy++) {
    for (let dx = -2; dx <= 2; dx++) offs[j++] = flip ? -(dy * w + dx) : dy * w + dx;
  }
  return offs;
}

/** fir.ts's applyFir: Σ coef[t] · W[c + offs[t]] − off · sumK + bias + off inside a 2-pixel border, NaN on it. */
export function applyFirKernel(W: Float32Array, w: number, h: number, coef: Float64Array, offs: Int32Array, off: number, sumK: number, bias: number): Float32Array {
  const n = w * h;
  if (W.length < n || coef.length !== 25 || offs.length !== 25) throw new Error('applyFirKernel: bad input');
  const { k, at } = kernelWith([4 * n, 4 * n, 8 * 25, 4 * 25]);
  const [Wa, out, c, o] = at;
  const buffer = k.memory.buffer;
  new Float32Array(buffer, Wa, n).set(W.subarray(0, n));
  new Float64Array(buffer, c, 25).set(coef);
  new Int32Array(buffer, o, 25).set(offs);
  k.applyFir(Wa, w, h, c, o, out, off, sumK, bias);
  return finish(k, () => new Float32Array(buffer, out, n).slice());
}

/** cell-decode.ts's accumulate: the f32 cell sums of r's bilinear projections at (u, v) on an nx x ny grid. */
export function accumulateCellsKernel(nx: number, ny: number, u: Float32Array, v: Float32Array, r: Float32Array): { p: Float32Array; w1: Float32Array; w2: Float32Array; r2: Float32Array } {
  const n = r.length;
  const cells = nx * ny;
  if (u.length < n || v.length < n || nx < 2 || ny < 2) throw new Error('accumulateCellsKernel: bad input');
  const { k, at } = kernelWith([4 * n, 4 * n, 4 * n, 4 * cells, 4 * cells, 4 * cells, 4 * cells]);
  const [ua, va, ra, p, w1, w2, r2] = at;
  const buffer = k.memory.buffer;
  new Float32Array(buffer, ua, n).set(u.subarray(0, n));
  new Float32Array(buffer, va, n).set(v.subarray(0, n));
  new Float32Array(buffer, ra, n).set(r);
  for (const sums of [p, w1, w2, r2]) new Float32Array(buffer, sums, cells).fill(0);
  k.accumulateCells(nx, ny, ua, va, ra, n, p, w1, w2, r2);
  const view = (offset: number): Float32Array => new Float32Array(buffer, offset, cells).slice();
  return finish(k, () => ({ p: view(p), w1: view(w1), w2: view(w2), r2: view(r2) }));
}

/**
 * registered-decode.ts's warp: for each inspected working pixel (x, y) of iw x ih, (a, b) = applyH(H, x, y) in the
 * original's working pixels (ow x oh), its normalised position qx = (a + 0.5) / ow, qy = (b + 0.5) / oh, and W the
 * cubic sample (sampleCubicOrNaN) of `src`, which is the original scaled by (src.w / ow, src.h / oh). In
 * JavaScript this loop's time varied 1–4× from call to call (each call ran it in the interpreter until V8 had
 * compiled it on the stack); the module's code is compiled once.
 */
export function warpCubicKernel(src: Plane, ow: number, oh: number, H: Float64Array, iw: number, ih: number): { qx: Float32Array; qy: Float32Array; W: Float32Array<ArrayBuffer> } {
  const n = iw * ih;
  const m = src.w * src.h;
  if (src.w < 2 || src.h < 2 || src.d.length < m || H.length !== 9) throw new Error('warpCubicKernel: bad input');
  const { k, at } = kernelWith([4 * m, 8 * 9, 4 * n, 4 * n, 4 * n]);
  const [s, h, qx, qy, W] = at;
  const buffer = k.memory.buffer;
  new Float32Array(buffer, s, m).set(src.d.subarray(0, m));
  new Float64Array(buffer, h, 9).set(H);
  k.warpCubic(s, src.w, src.h, h, ow, oh, src.w / ow, src.h / oh, iw, ih, qx, qy, W);
  const view = (offset: number): Float32Array<ArrayBuffer> => new Float32Array(buffer, offset, n).slice();
  return finish(k, () => ({ qx: view(qx), qy: view(qy), W: view(W) }));
}

/**
 * register.ts's coarseSearch scan: the best NCC placement of a template (offsets `off` into the original plane O,
 * zero-mean unit-norm values `t`, f64) over every placement of its tw x th box in O. The same
 * sums in the same order as the JavaScript loop (four placements at a time), so the same score and place; score −2
 * when every placement is flat.
 */
export function nccSearchKernel(O: Plane, tw: number, th: number, off: Int32Array, t: Float64Array): { best: number; x: number; y: number } {
  const m = O.w * O.h;
  const n = off.length;
  if (O.d.length < m || t.length !== n || tw < 1 || th < 1) throw new Error('nccSearchKernel: bad input');
  // four placements are read at once: up to 3 floats past the plane's end
  const { k, at } = kernelWith([4 * m + 16, 4 * n, 8 * n, 16, 8 * 12]);
  const [o, offs, ts, out, scratch] = at;
  const buffer = k.memory.buffer;
  new Float32Array(buffer, o, m + 4).fill(0).set(O.d.subarray(0, m));
  new Int32Array(buffer, offs, n).set(off);
  new Float64Array(buffer, ts, n).set(t);
  k.nccSearch(o, O.w, O.h, tw, th, offs, ts, n, out, scratch);
  return finish(k, () => ({ best: new Float64Array(buffer, out, 1)[0], x: new Int32Array(buffer, out + 8, 1)[0], y: new Int32Array(buffer, out + 12, 1)[0] }));
}

/**
 * The alignment scores' own instance, with the planes it holds: a registration scores some 100 geometries of the
 * same original (or its reduction) and inspected image, so these are copied in once, not per score, and the fill
 * mask once per change. Held by weak references (the kernel keeps a copy; the planes themselves are not kept alive).
 * The library never writes into a plane it has made, which is what makes identity enough to know a copy is current.
 */
let aligner: { k: DecodeKernel; O: WeakRef<Float32Array>; I: WeakRef<Float32Array>; fill: WeakRef<Uint8Array> | null; at: number[]; capacity: number } | null = null;

/**
 * register.ts's NCC sums of the aligned sample pairs (inspected value, original's bilinear sample at H(x, y)) over
 * every `step`-th pixel of every `step`-th row of I that H maps inside O: with `tiles` = 0, 12 values, the sums over
 * all pairs then over those where `fill` is 0; otherwise 6 per tile of a tiles x tiles grid (no fill read). Each sum
 * is (n, Σa, Σb, Σa², Σb², Σab), added in the JavaScript loop's order.
 */
export function alignedSumsKernel(O: Plane, I: Plane, H: Float64Array, step: number, fill: Uint8Array | null, tiles: number): Float64Array {
  const mo = O.w * O.h;
  const mi = I.w * I.h;
  if (O.d.length < mo || I.d.length < mi || (tiles === 0 ? !fill || fill.length < mi : tiles < 1) || H.length !== 9 || step < 1 || O.w < 1 || O.h < 1) throw new Error('alignedSumsKernel: bad input');
  const sums = tiles === 0 ? 12 : tiles * tiles * 6;
  let a = aligner && aligner.O.deref() === O.d && aligner.I.deref() === I.d && aligner.capacity >= sums ? aligner : null;
  if (!a) {
    const k = aligner?.k ?? (new WebAssembly.Instance(decodeKernelModule, {}).exports as unknown as DecodeKernel);
    const capacity = Math.max(sums, 12 * 64);
    const { at, end } = layout(BASE, [4 * mo, 4 * mi, mi, 8 * 9, 8 * capacity]);
    ensureMemory(k.memory, end);
    const buffer = k.memory.buffer;
    new Float32Array(buffer, at[0], mo).set(O.d.subarray(0, mo));
    new Float32Array(buffer, at[1], mi).set(I.d.subarray(0, mi));
    a = { k, O: new WeakRef(O.d), I: new WeakRef(I.d), fill: null, at, capacity };
  }
  const [o, i, f, h, out] = a.at;
  const buffer = a.k.memory.buffer;
  if (fill && tiles === 0 && a.fill?.deref() !== fill) {
    new Uint8Array(buffer, f, mi).set(fill.subarray(0, mi));
    a.fill = new WeakRef(fill);
  }
  new Float64Array(buffer, h, 9).set(H);
  const result = new Float64Array(buffer, out, sums).fill(0);
  a.k.alignedSums(o, O.w, O.h, i, I.w, I.h, h, step, f, tiles, out);
  const copy = result.slice();
  // an instance grown beyond what the process keeps is dropped, as the decode kernel's
  aligner = a.k.memory.buffer.byteLength > RETAIN_BYTES ? null : a;
  return copy;
}

/**
 * register.ts's block matching: the NCC of a (2R+1)² patch (values `patch`, zero mean over the `valid` taps, n of
 * them, Σ patch² = ss) with the original around (cx, cy) at every shift in [−S, S]², row-major ((2S+1)² scores).
 * The window of O it reads, (cx ± (R+S), cy ± (R+S)), must lie inside O. The same sums in the same order as the
 * JavaScript loop (four shifts at a time).
 */
export function blockScoresKernel(O: Plane, cx: number, cy: number, R: number, S: number, patch: Float64Array, valid: Uint8Array, n: number, ss: number): Float64Array {
  const size = 2 * R + 1;
  const ww = 2 * (R + S) + 1;
  const side = 2 * S + 1;
  const x0 = cx - R - S;
  const y0 = cy - R - S;
  if (x0 < 0 || y0 < 0 || x0 + ww > O.w || y0 + ww > O.h || patch.length < size * size || valid.length < size * size) throw new Error('blockScoresKernel: bad input');
  // four shifts are read at once: up to 3 floats past the window's end
  const { k, at } = kernelWith([4 * ww * ww + 16, 4 * size * size, 8 * size * size, 8 * side * side, 8 * 12]);
  const [win, offs, p, scores, scratch] = at;
  const buffer = k.memory.buffer;
  const w = new Float32Array(buffer, win, ww * ww + 4);
  for (let y = 0; y < ww; y++) w.set(O.d.subarray((y0 + y) * O.w + x0, (y0 + y) * O.w + x0 + ww), y * ww);
  w.fill(0, ww * ww);
  // the valid taps, row by row: their offsets in the window (at shift (0, 0)) and values
  const o = new Int32Array(buffer, offs, size * size);
  const v = new Float64Array(buffer, p, size * size);
  let count = 0;
  for (let b = 0; b < size; b++) {
    for (let a = 0; a < size; a++) {
      const tap = b * size + a;
      if (!valid[tap]) continue;
      o[count] = b * ww + a;
      v[count] = patch[tap];
      count++;
    }
  }
  k.blockScores(win, ww, S, offs, p, count, n, ss, scores, scratch);
  return finish(k, () => new Float64Array(buffer, scores, side * side).slice());
}

/** One layer of soft-decode.ts's joint estimate: its grid width, bit and coefficient per cell, and pixel taps. */
export interface JointLayer {
  nx: number;
  bit: Uint16Array;
  cf: Float32Array;
  /** Base cell of each pixel (−1: none), and its bilinear fractions (cell-decode.ts's PixelTaps). */
  c: Int32Array;
  fx: Float32Array;
  fy: Float32Array;
}

/**
 * soft-decode.ts's joint operator on a w x h box: `apply(sv)` = project(adjoint(weigh(forward(synth(sv))))) and
 * `rhs(r)` = project(adjoint(weigh(r))), with forward / adjoint the 5 x 5 filter's correlation / convolution
 * (identity without a filter) and weigh the per-pixel weights W. The conjugate-gradient solve calls it 17 times on
 * every pixel of the box; the same operations in the same order as the JavaScript loops they replaced.
 *
 * `layers` and `W` are views of the kernel's memory, for the caller to fill before the first call (each layer's bits
 * and coefficients, every pixel's taps and weight: the memory is reused, nothing in it is zero): the pixel arrays are
 * written there once instead of being made in JavaScript and copied (at 8 MP, about 290 MB fewer at the peak). No
 * other kernel call may come between creation and `release()` (they share the instance's memory), and the views must
 * not be used after it.
 */
export interface JointOperator {
  layers: JointLayer[];
  W: Float32Array;
  apply(sv: Float64Array): Float64Array;
  rhs(r: Float32Array): Float64Array;
  release(): void;
}

/** Each layer's grid width and number of cells. */
export interface JointGrid {
  nx: number;
  cells: number;
}

export function jointOperatorKernel(w: number, h: number, grids: readonly JointGrid[], fir: Float64Array | null, bits: number): JointOperator {
  const n = w * h;
  if ((fir && fir.length < 25) || grids.some((g) => g.nx < 2 || g.cells < 2 * g.nx)) throw new Error('jointOperatorKernel: bad input');
  const perLayer = grids.flatMap((g) => [4 * n, 4 * n, 4 * n, 4 * g.cells, 2 * g.cells]);
  const { k, at } = kernelWith([...perLayer, 4 * n, 4 * n, 4 * n, 8 * 25, 4 * 25, 4 * 25, 8 * bits, 8 * bits]);
  const buffer = k.memory.buffer;
  const layerAt = grids.map((g, l) => {
    const [c, fx, fy, cf, bit] = at.slice(5 * l, 5 * l + 5);
    return { nx: g.nx, c, fx, fy, cf, bit };
  });
  const layers = grids.map((g, l) => {
    const a = layerAt[l];
    return { nx: g.nx, c: new Int32Array(buffer, a.c, n), fx: new Float32Array(buffer, a.fx, n), fy: new Float32Array(buffer, a.fy, n), cf: new Float32Array(buffer, a.cf, g.cells), bit: new Uint16Array(buffer, a.bit, g.cells) };
  });
  const [Wa, m, t, coef, forward, adjoint, sv, out] = at.slice(5 * grids.length);
  if (fir) {
    new Float64Array(buffer, coef, 25).set(fir.subarray(0, 25));
    new Int32Array(buffer, forward, 25).set(firTapOffsets(w, false));
    new Int32Array(buffer, adjoint, 25).set(firTapOffsets(w, true));
  }
  const plane = new Float32Array(buffer, m, n);
  const svs = new Float64Array(buffer, sv, bits);
  const outs = new Float64Array(buffer, out, bits);
  /** project(adjoint(weigh(the plane at src))), with `scratch` the other plane. */
  const back = (src: number, scratch: number): Float64Array => {
    k.weighPlane(src, Wa, n);
    let img = src;
    if (fir) {
      k.firConvolve(src, w, h, coef, adjoint, scratch);
      img = scratch;
    }
    outs.fill(0);
    for (const L of layerAt) k.jointProject(n, L.nx, L.c, L.fx, L.fy, L.cf, L.bit, img, out);
    return outs.slice();
  };
  return {
    layers,
    W: new Float32Array(buffer, Wa, n),
    apply(values: Float64Array): Float64Array {
      svs.set(values.subarray(0, bits));
      plane.fill(0);
      for (const L of layerAt) k.jointSynth(n, L.nx, L.c, L.fx, L.fy, L.cf, L.bit, sv, m);
      if (!fir) return back(m, t);
      k.firConvolve(m, w, h, coef, forward, t);
      return back(t, m);
    },
    rhs(r: Float32Array): Float64Array {
      plane.set(r.subarray(0, n));
      return back(m, t);
    },
    release(): void {
      finish(k, () => undefined);
    },
  };
}
