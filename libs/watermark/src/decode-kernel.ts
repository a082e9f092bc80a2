import { DECODE_KERNEL_WASM_BASE64 } from './decode-kernel.wasm';
import { ensureMemory } from './wasm-pool';

/** Compiled once per process. */
const decodeKernelModule = new WebAssembly.Module(Buffer.from(DECODE_KERNEL_WASM_BASE64, 'base64'));

type NormalEquationsFn = (W: number, I: number, w: number, h: number, step: number, lut: number, bins: number, cx: number, cy: number, sc: number, degree: number, ti: number, tj: number, m: number, A: number, b: number, saturated: number, scratch: number) => void;

/** Start of the memory this module manages. */
const BASE = 1024;
const align = (n: number): number => (n + 63) & ~63;
/** The kernel's scratch powers hold this degree at most (MAX_DEGREE in assembly/decode-kernel.ts). */
const MAX_DEGREE = 8;

/**
 * One instance per process: the call below is synchronous, so no two uses can overlap. Its memory keeps the largest
 * planes it was given (two f32 planes of the working size: about 3 MB for a 12 MP original).
 */
let instance: { memory: WebAssembly.Memory; normalEquations: NormalEquationsFn } | null = null;

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
  if (!instance) {
    const exports = new WebAssembly.Instance(decodeKernelModule, {}).exports as { memory: WebAssembly.Memory; normalEquations: NormalEquationsFn };
    instance = { memory: exports.memory, normalEquations: exports.normalEquations };
  }
  const { memory, normalEquations } = instance;
  let at = BASE;
  const take = (bytes: number): number => {
    const offset = at;
    at = align(at + bytes);
    return offset;
  };
  const l = { W: take(4 * n), I: take(4 * n), lut: take(8 * p.lut.length), ti: take(4 * m), tj: take(4 * m), A: take(8 * m * m), b: take(8 * m), scratch: take(8 * (2 * (MAX_DEGREE + 1) + m)) };
  ensureMemory(memory, at);
  const buffer = memory.buffer;
  new Float32Array(buffer, l.W, n).set(p.W.subarray(0, n));
  new Float32Array(buffer, l.I, n).set(p.I.subarray(0, n));
  new Float64Array(buffer, l.lut, p.lut.length).set(p.lut);
  new Int32Array(buffer, l.ti, m).set(p.ti);
  new Int32Array(buffer, l.tj, m).set(p.tj);
  const A = new Float64Array(buffer, l.A, m * m);
  const b = new Float64Array(buffer, l.b, m);
  A.fill(0);
  b.fill(0);
  normalEquations(l.W, l.I, p.w, p.h, p.step, l.lut, p.lut.length, p.cx, p.cy, p.sc, p.degree, l.ti, l.tj, m, l.A, l.b, p.saturated, l.scratch);
  return { A: A.slice(), b: b.slice() };
}
