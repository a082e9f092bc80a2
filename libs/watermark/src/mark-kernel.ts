import { MARK_KERNEL_WASM_BASE64 } from './mark-kernel.wasm';
import { ensureMemory, WasmPool } from './wasm-pool';

/** Compiled once per process; instances are cheap. */
const kernelModule = new WebAssembly.Module(Buffer.from(MARK_KERNEL_WASM_BASE64, 'base64'));

/** Start of the memory this module manages (the kernel itself keeps no data). */
const BASE = 1024;
const align = (n: number): number => (n + 63) & ~63;

type MarkRowFn = (px: number, w: number, ch: number, p0a: number, p0b: number, f0: number, p1a: number, p1b: number, f1: number) => void;

/**
 * One WebAssembly instance of the 8-bit mark kernel with its memory: four profile rows of floats and a chunk of
 * pixel rows, marked in place there.
 */
export class MarkKernel {
  private readonly memory: WebAssembly.Memory;
  private readonly markRowFn: MarkRowFn;
  private profileBytes = 0;
  private pixelOffset = 0;

  constructor() {
    const instance = new WebAssembly.Instance(kernelModule, {});
    const exports = instance.exports as { memory: WebAssembly.Memory; markRow: MarkRowFn };
    this.memory = exports.memory;
    this.markRowFn = exports.markRow;
  }

  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /** Lays out profiles of `width` floats and `pixelBytes` of pixels, growing the memory when needed. */
  prepare(width: number, pixelBytes: number): void {
    this.profileBytes = align(width * 4 + 16);
    this.pixelOffset = BASE + 4 * this.profileBytes;
    ensureMemory(this.memory, this.pixelOffset + align(pixelBytes));
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
