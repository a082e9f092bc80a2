/** Something that owns a WebAssembly memory. */
export interface WasmWorker {
  readonly byteLength: number;
}

/**
 * Idle WebAssembly instances keep their memory, so the next image of a similar size costs no page faults. Each
 * use gets an instance of its own (instances are never shared between concurrent uses); instances that grew
 * beyond `retainBytes` are dropped after use instead of kept.
 */
export class WasmPool<T extends WasmWorker> {
  private readonly idle: T[] = [];

  constructor(
    private readonly create: () => T,
    private readonly maxIdle = 2,
    private readonly retainBytes = 64 * 1024 * 1024,
  ) {}

  async use<R>(run: (worker: T) => Promise<R>): Promise<R> {
    const worker = this.acquire();
    try {
      return await run(worker);
    } finally {
      this.release(worker);
    }
  }

  private acquire(): T {
    return this.idle.pop() ?? this.create();
  }

  private release(worker: T): void {
    if (worker.byteLength <= this.retainBytes && this.idle.length < this.maxIdle) this.idle.push(worker);
  }
}

const PAGE = 65536;

/** Grows `memory` to at least `bytes`. */
export function ensureMemory(memory: WebAssembly.Memory, bytes: number): void {
  const have = memory.buffer.byteLength;
  if (bytes > have) memory.grow(Math.ceil((bytes - have) / PAGE));
}

/** Rounds a byte offset up to 64 (a cache line, and more than any typed array's alignment). */
export const align = (n: number): number => (n + 63) & ~63;

/**
 * Consecutive 64-byte-aligned areas of the given byte sizes from `start`: their offsets, in order, and the end of
 * the last (what the memory must hold).
 */
export function layout(start: number, bytes: readonly number[]): { at: number[]; end: number } {
  let next = start;
  const at = bytes.map((b) => {
    const offset = next;
    next = align(next + b);
    return offset;
  });
  return { at, end: next };
}
