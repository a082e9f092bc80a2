import { MARK_KERNEL_WASM_BASE64 } from './mark-kernel.wasm';
import { align, ensureMemory, layout, WasmPool } from './wasm-pool';

/** Compiled once per process; instances are cheap. */
const kernelModule = new WebAssembly.Module(Buffer.from(MARK_KERNEL_WASM_BASE64, 'base64'));

/** Start of the memory this module manages (the kernel itself keeps no data). */
const BASE = 1024;

type MarkRowFn = (px: number, w: number, ch: number, p0a: number, p0b: number, f0: number, p1a: number, p1b: number, f1: number) => void;
type ActivityFn = (px: number, w: number, h: number, ch: number, gray: number, step: number, cxOf: number, cyOf: number, sum: number, lum: number, cnt: number, df: number, darkV: number, flatA: number) => void;

/** Where the activity pass of a whole raster keeps its tables and sums (byte offsets in the kernel's memory). */
interface ActivityLayout {
  cxOf: number;
  cyOf: number;
  sum: number;
  lum: number;
  cnt: number;
  df: number;
}

/** Per-cell sums of a raster's activity pass (see embed.ts's rasterActivity). */
export interface ActivitySums {
  sum: Float64Array;
  lum: Float64Array;
  cnt: Int32Array;
  df: Int32Array;
}

/**
 * One WebAssembly instance of the 8-bit mark kernel with its memory: four profile rows of floats and a chunk of
 * pixel rows (or a whole raster, with the per-cell sums of its activity pass), marked in place there.
 */
export class MarkKernel {
  private readonly memory: WebAssembly.Memory;
  private readonly markRowFn: MarkRowFn;
  private readonly activityFn: ActivityFn;
  private profileBytes = 0;
  private pixelOffset = 0;
  private sums: (ActivityLayout & { width: number; rows: number; cells: number; end: number }) | null = null;

  constructor() {
    const instance = new WebAssembly.Instance(kernelModule, {});
    const exports = instance.exports as { memory: WebAssembly.Memory; markRow: MarkRowFn; activity: ActivityFn };
    this.memory = exports.memory;
    this.markRowFn = exports.markRow;
    this.activityFn = exports.activity;
  }

  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * Lays out profiles of `width` floats and `pixelBytes` of pixels, then, when `sums` is given, the tables and
   * per-cell sums of an activity pass over `width` columns; the memory grows here only, so views taken after this
   * call stay valid until the next one.
   */
  prepare(width: number, pixelBytes: number, sums?: { cells: number; sampledRows: number }): void {
    this.profileBytes = align(width * 4 + 16);
    this.pixelOffset = BASE + 4 * this.profileBytes;
    const pixelEnd = this.pixelOffset + align(pixelBytes);
    if (!sums) {
      this.sums = null;
      ensureMemory(this.memory, pixelEnd);
      return;
    }
    const { cells, sampledRows } = sums;
    const { at, end } = layout(pixelEnd, [4 * width, 4 * sampledRows, 8 * cells, 8 * cells, 4 * cells, 4 * cells]);
    const [cxOf, cyOf, sum, lum, cnt, df] = at;
    this.sums = { width, rows: sampledRows, cells, cxOf, cyOf, sum, lum, cnt, df, end };
    ensureMemory(this.memory, end);
  }

  /**
   * Per-cell activity sums of the w x h raster held in the pixel area (see prepare()): every `step`-th sample of
   * every `step`-th row, cell column `cxOf[x]` and first cell `cyOf[k]` of the k-th sampled row's cell row.
   */
  activity(w: number, h: number, ch: number, gray: boolean, step: number, cxOf: Int32Array, cyOf: Int32Array, darkV: number, flatA: number): ActivitySums {
    const l = this.sums;
    if (!l || w !== l.width || cxOf.length !== w || cyOf.length > l.rows) throw new Error('activity(): the kernel was not prepared for this raster');
    const buffer = this.memory.buffer;
    new Int32Array(buffer, l.cxOf, cxOf.length).set(cxOf);
    new Int32Array(buffer, l.cyOf, cyOf.length).set(cyOf);
    // an instance from the pool keeps its last image's sums
    new Uint8Array(buffer, l.sum, l.end - l.sum).fill(0);
    this.activityFn(this.pixelOffset, w, h, ch, gray ? 1 : 0, step, l.cxOf, l.cyOf, l.sum, l.lum, l.cnt, l.df, darkV, flatA);
    return {
      sum: new Float64Array(buffer, l.sum, l.cells).slice(),
      lum: new Float64Array(buffer, l.lum, l.cells).slice(),
      cnt: new Int32Array(buffer, l.cnt, l.cells).slice(),
      df: new Int32Array(buffer, l.df, l.cells).slice(),
    };
  }

  /** Byte offset of profile slot `slot` (0..3). */
  profileOffset(slot: number): number {
    return BASE + slot * this.profileBytes;
  }

  profile(slot: number, width: number): Float32Array {
    return new Float32Array(this.memory.buffer, this.profileOffset(slot), width);
  }

  /** The pixel area as a Buffer (valid until the next prepare(): growing the memory detaches it). */
  pixels(byteLength: number): Buffer {
    return Buffer.from(this.memory.buffer, this.pixelOffset, byteLength);
  }

  markRow(rowByteOffset: number, width: number, channels: number, slots: readonly number[], f0: number, f1: number): void {
    this.markRowFn(this.pixelOffset + rowByteOffset, width, channels, this.profileOffset(slots[0]), this.profileOffset(slots[1]), f0, this.profileOffset(slots[2]), this.profileOffset(slots[3]), f1);
  }
}

const kernels = new WasmPool(() => new MarkKernel());

/** Runs `use` with a kernel of its own (kernels are not shared between concurrent embeds). */
export function withMarkKernel<T>(use: (kernel: MarkKernel) => Promise<T>): Promise<T> {
  return kernels.use(use);
}
