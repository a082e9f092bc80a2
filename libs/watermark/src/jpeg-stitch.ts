/**
 * Joins baseline JPEGs of horizontal strips of one image into one JPEG with Huffman tables optimal for the whole
 * image. Why: an optimised (two-pass) encode of a large image runs on one core; strips encoded in parallel with
 * the standard tables and re-coded here give the same pixels and about the same size in less wall time. Each
 * strip becomes one restart interval (a restart resets the DC predictors, as a strip's own encode starts), so
 * the quantised coefficients are kept bit for bit; only their Huffman codes change. The bit-level work runs in
 * WebAssembly (assembly/jpeg-entropy.ts).
 *
 * Only what libjpeg-family encoders write for a baseline image is accepted (8-bit, one interleaved scan, Huffman
 * coding, no restart markers, the same tables in every strip); for anything else the joiner gives up and the
 * caller encodes the whole image in one call.
 */

import { JPEG_ENTROPY_WASM_BASE64 } from './jpeg-entropy.wasm';
import { align, ensureMemory, WasmPool, WasmWorker } from './wasm-pool';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

interface FrameComponent {
  id: number;
  h: number;
  v: number;
}

interface ScanComponent {
  id: number;
  dc: number;
  ac: number;
}

interface Strip {
  width: number;
  height: number;
  components: FrameComponent[];
  scan: ScanComponent[];
  /** Huffman tables by slot (class * 4 + id): counts per length 1..16 and values. */
  tables: Map<number, { bits: Uint8Array; values: Uint8Array }>;
  /** Segments before the first DHT/SOS that are copied to the output (APPn, DQT, SOF, COM). */
  header: Buffer[];
  sofIndex: number;
  /** Quantisation table segments, which must be the same in every strip. */
  quant: Buffer;
  /** Entropy-coded data of the scan (still byte-stuffed), up to the EOI marker. */
  data: Uint8Array;
}

function parseStrip(buf: Buffer): Strip | null {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  let p = 2;
  const header: Buffer[] = [];
  const tables = new Map<number, { bits: Uint8Array; values: Uint8Array }>();
  let frame: { width: number; height: number; components: FrameComponent[] } | null = null;
  let sofIndex = -1;
  const quant: Buffer[] = [];
  while (p + 4 <= buf.length) {
    if (buf[p] !== 0xff) return null;
    const marker = buf[p + 1];
    const len = buf.readUInt16BE(p + 2);
    const body = buf.subarray(p + 4, p + 2 + len);
    if (marker === 0xc0 || marker === 0xc1) {
      const components: FrameComponent[] = [];
      for (let i = 0; i < body[5]; i++) components.push({ id: body[6 + i * 3], h: body[7 + i * 3] >> 4, v: body[7 + i * 3] & 15 });
      if (body[0] !== 8) return null;
      frame = { height: body.readUInt16BE(1), width: body.readUInt16BE(3), components };
      sofIndex = header.length;
      header.push(buf.subarray(p, p + 2 + len));
    } else if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return null; // progressive, lossless, hierarchical or arithmetic coding
    } else if (marker === 0xc4) {
      let q = 0;
      while (q < body.length) {
        const slot = (body[q] >> 4) * 4 + (body[q] & 15);
        const bits = body.subarray(q + 1, q + 17);
        let n = 0;
        for (let i = 0; i < 16; i++) n += bits[i];
        tables.set(slot, { bits: Uint8Array.from(bits), values: Uint8Array.from(body.subarray(q + 17, q + 17 + n)) });
        q += 17 + n;
      }
    } else if (marker === 0xdd) {
      if (body.readUInt16BE(0) !== 0) return null;
    } else if (marker === 0xda) {
      if (!frame) return null;
      const scan: ScanComponent[] = [];
      for (let i = 0; i < body[0]; i++) scan.push({ id: body[1 + i * 2], dc: body[2 + i * 2] >> 4, ac: body[2 + i * 2] & 15 });
      const ss = body[1 + body[0] * 2];
      const se = body[2 + body[0] * 2];
      if (scan.length !== frame.components.length || ss !== 0 || se !== 63) return null;
      const start = p + 2 + len;
      if (buf.length < start + 2 || buf[buf.length - 2] !== 0xff || buf[buf.length - 1] !== 0xd9) return null;
      return { ...frame, scan, tables, header, sofIndex, quant: Buffer.concat(quant), data: buf.subarray(start, buf.length - 2) };
    } else {
      if (marker === 0xdb) quant.push(body);
      header.push(buf.subarray(p, p + 2 + len)); // APPn, DQT, COM
    }
    p += 2 + len;
  }
  return null;
}

/** Optimal JPEG Huffman table (code lengths limited to 16) for symbol frequencies (JPEG Annex K.2 and K.3). */
export function optimalTable(freqIn: Uint32Array): { bits: Uint8Array; values: Uint8Array } {
  const freq = new Float64Array(257);
  for (let i = 0; i < 256; i++) freq[i] = freqIn[i];
  freq[256] = 1; // reserves one code point so that no code is all ones
  const codesize = new Int32Array(257);
  const others = new Int32Array(257).fill(-1);
  for (;;) {
    let c1 = -1;
    let v = Infinity;
    for (let i = 0; i <= 256; i++) {
      if (freq[i] > 0 && freq[i] <= v) {
        v = freq[i];
        c1 = i;
      }
    }
    let c2 = -1;
    v = Infinity;
    for (let i = 0; i <= 256; i++) {
      if (freq[i] > 0 && freq[i] <= v && i !== c1) {
        v = freq[i];
        c2 = i;
      }
    }
    if (c2 < 0) break;
    freq[c1] += freq[c2];
    freq[c2] = 0;
    codesize[c1]++;
    while (others[c1] >= 0) {
      c1 = others[c1];
      codesize[c1]++;
    }
    others[c1] = c2;
    codesize[c2]++;
    while (others[c2] >= 0) {
      c2 = others[c2];
      codesize[c2]++;
    }
  }
  const bits = new Int32Array(33);
  for (let i = 0; i <= 256; i++) if (codesize[i] > 0) bits[codesize[i]]++;
  for (let i = 32; i > 16; i--) {
    while (bits[i] > 0) {
      let j = i - 2;
      while (bits[j] === 0) j--;
      bits[i] -= 2;
      bits[i - 1]++;
      bits[j + 1] += 2;
      bits[j]--;
    }
  }
  let i = 16;
  while (bits[i] === 0) i--;
  bits[i]--; // drop the reserved code point
  const values: number[] = [];
  for (let len = 1; len <= 32; len++) for (let s = 0; s < 256; s++) if (codesize[s] === len) values.push(s);
  const out = new Uint8Array(16);
  for (let len = 1; len <= 16; len++) out[len - 1] = bits[len];
  return { bits: out, values: Uint8Array.from(values) };
}

function segment(marker: number, body: Uint8Array): Buffer {
  const head = Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255]);
  return Buffer.concat([head, body]);
}

/** Layout of the module's memory (see assembly/jpeg-entropy.ts): tables first, then one region per strip. */
const TABLE_BYTES = 512;
const CODE_BYTES = 1280;
const TABLES = 1024;
const CODES = TABLES + 4 * TABLE_BYTES;
const BLOCK_SEL = CODES + 4 * CODE_BYTES;
const FREQS = BLOCK_SEL + 64;
/** Fast tables: per decoding table, 2^11 (symbol word, info) pairs (see assembly/jpeg-entropy.ts). */
const FAST_BITS = 11;
const FAST = FREQS + 4 * 256 * 4;
const FAST_BYTES = 8 << FAST_BITS;
const REGIONS = FAST + 4 * FAST_BYTES;

type UnstuffFn = (src: number, len: number, dst: number) => number;
type DecodeScanFn = (data: number, len: number, blockSel: number, blocksPerMcu: number, mcus: number, tables: number, fast: number, out: number, count: number, cap: number) => number;
type CountFn = (symbols: number, count: number, freqs: number) => void;
type EncodeScanFn = (symbols: number, count: number, codes: number, out: number, cap: number) => number;

const entropyModule = new WebAssembly.Module(Buffer.from(JPEG_ENTROPY_WASM_BASE64, 'base64'));

type HuffmanSpec = { bits: Uint8Array; values: Uint8Array };

/** One instance of the entropy module with its memory. */
export class JpegEntropy implements WasmWorker {
  readonly memory: WebAssembly.Memory;
  readonly unstuff: UnstuffFn;
  readonly decodeScan: DecodeScanFn;
  readonly countSymbols: CountFn;
  readonly encodeScan: EncodeScanFn;

  constructor() {
    const exports = new WebAssembly.Instance(entropyModule, {}).exports as {
      memory: WebAssembly.Memory;
      unstuff: UnstuffFn;
      decodeScan: DecodeScanFn;
      countSymbols: CountFn;
      encodeScan: EncodeScanFn;
    };
    this.memory = exports.memory;
    this.unstuff = exports.unstuff;
    this.decodeScan = exports.decodeScan;
    this.countSymbols = exports.countSymbols;
    this.encodeScan = exports.encodeScan;
  }

  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }
}

const entropyPool = new WasmPool(() => new JpegEntropy());

/** Runs `use` with an entropy instance of its own. */
export function withJpegEntropy<T>(use: (entropy: JpegEntropy) => Promise<T>): Promise<T> {
  return entropyPool.use(use);
}

interface StripSymbols {
  strip: Strip;
  at: number;
  count: number;
}

/**
 * Joins strip JPEGs of one image, top to bottom, into one JPEG with optimal Huffman tables and a restart marker
 * between strips. Strips may be added in any order (each is decoded as soon as it arrives, while the others are
 * still being encoded); every strip but the last must be a whole number of MCU rows of the same height.
 * Any strip the joiner cannot take makes finish() return null: the caller then encodes the image in one call.
 */
export class JpegStripJoiner {
  private readonly strips: (StripSymbols | null)[];
  private failed = false;
  private next = REGIONS;
  /** The first strip added: every other one must match its layout, tables and quantisation. */
  private first: { strip: Strip; layout: StripLayout } | null = null;

  constructor(
    private readonly entropy: JpegEntropy,
    stripCount: number,
  ) {
    this.strips = new Array<StripSymbols | null>(stripCount).fill(null);
  }

  add(index: number, jpeg: Buffer): void {
    if (this.failed) return;
    try {
      const strip = parseStrip(jpeg);
      const symbols = strip ? this.decode(strip) : null;
      if (!symbols) this.failed = true;
      else this.strips[index] = symbols;
    } catch {
      // a strip this joiner cannot read (truncated segment, table overflow): the caller encodes in one call
      this.failed = true;
    }
  }

  finish(): Buffer | null {
    if (this.failed || this.strips.some((s) => s === null) || !this.first) return null;
    const strips = this.strips as StripSymbols[];
    const first = strips[0].strip;
    const { mcusX, mcuH } = this.first.layout;
    // every strip but the last is one restart interval of whole MCU rows
    const interval = mcusX * math.ceil(first.height / mcuH);
    if (strips.length > 1 && (first.height % mcuH !== 0 || interval > 0xffff)) return null;
    for (let i = 0; i < strips.length - 1; i++) if (strips[i].strip.height !== first.height) return null;
    const e = this.entropy;
    new Uint32Array(e.memory.buffer, FREQS, 4 * 256).fill(0);
    for (const s of strips) e.countSymbols(s.at, s.count, FREQS);
    const freqs = new Uint32Array(e.memory.buffer, FREQS, 4 * 256).slice();
    const tables = new Map<number, HuffmanSpec>();
    for (let t = 0; t < 4; t++) {
      const f = freqs.subarray(t * 256, t * 256 + 256);
      if (f.some((v) => v > 0)) tables.set(t, optimalTable(f));
    }
    this.writeEncodeTables(tables);
    const intervals: Buffer[] = [];
    for (let i = 0; i < strips.length; i++) {
      const s = strips[i];
      // optimal codes never take more bits than the strip's own tables; stuffing may add a little
      const cap = s.strip.data.length + (s.strip.data.length >> 3) + 1024;
      const outAt = align(this.next);
      ensureMemory(e.memory, outAt + cap);
      const written = e.encodeScan(s.at, s.count, CODES, outAt, cap);
      if (written < 0) return null;
      if (i > 0) intervals.push(Buffer.from([0xff, 0xd0 + ((i - 1) & 7)]));
      intervals.push(Buffer.from(new Uint8Array(e.memory.buffer, outAt, written)));
    }
    const height = strips.reduce((n, s) => n + s.strip.height, 0);
    const header = first.header.map((seg, i) => {
      if (i !== first.sofIndex) return seg;
      const sof = Buffer.from(seg);
      sof.writeUInt16BE(height, 5);
      return sof;
    });
    const dht: number[] = [];
    for (const [t, spec] of tables) dht.push(((t >= 2 ? 1 : 0) << 4) | (t & 1), ...spec.bits, ...spec.values);
    const sos = [first.scan.length];
    for (const c of first.scan) sos.push(c.id, (c.dc << 4) | c.ac);
    sos.push(0, 63, 0);
    const dri = strips.length > 1 ? [segment(0xdd, Uint8Array.from([interval >> 8, interval & 255]))] : [];
    return Buffer.concat([Buffer.from([0xff, 0xd8]), ...header, ...dri, segment(0xc4, Uint8Array.from(dht)), segment(0xda, Uint8Array.from(sos)), ...intervals, Buffer.from([0xff, 0xd9])]);
  }

  /** Decodes the symbols of one strip into a region of its own. */
  private decode(strip: Strip): StripSymbols | null {
    const e = this.entropy;
    if (!this.first) {
      const layout = stripLayout(strip);
      if (!layout) return null;
      this.first = { strip, layout };
      ensureMemory(e.memory, REGIONS);
      this.writeDecodeTables(strip.tables);
      new Uint8Array(e.memory.buffer, BLOCK_SEL, layout.blockSel.length).set(layout.blockSel);
    } else {
      const ref = this.first.strip;
      if (strip.width !== ref.width || !sameLayout(strip, ref) || !sameTables(strip.tables, ref.tables) || !strip.quant.equals(ref.quant)) return null;
    }
    const { blockSel, mcusX, mcuH } = this.first.layout;
    const mcus = mcusX * math.ceil(strip.height / mcuH);
    const len = strip.data.length;
    const stuffedAt = align(this.next);
    const dataAt = align(stuffedAt + len);
    // the decoder reads up to 8 bytes past the data (zeros there); every symbol takes at least one bit, and the
    // region starts with room for one symbol per two bits, doubled when short
    const symbolsAt = align(dataAt + len + 16);
    let cap = len * 4 + 64 * blockSel.length;
    ensureMemory(e.memory, symbolsAt + cap * 4);
    new Uint8Array(e.memory.buffer, stuffedAt, len).set(strip.data);
    const length = e.unstuff(stuffedAt, len, dataAt);
    if (length < 0) return null;
    new Uint8Array(e.memory.buffer, dataAt + length, 16).fill(0);
    let count = e.decodeScan(dataAt, length, BLOCK_SEL, blockSel.length, mcus, TABLES, FAST, symbolsAt, 0, cap);
    while (count === -2) {
      cap *= 2;
      ensureMemory(e.memory, symbolsAt + cap * 4);
      count = e.decodeScan(dataAt, length, BLOCK_SEL, blockSel.length, mcus, TABLES, FAST, symbolsAt, 0, cap);
    }
    if (count < 0) return null;
    this.next = symbolsAt + count * 4;
    return { strip, at: symbolsAt, count };
  }

  private writeDecodeTables(tables: Strip['tables']): void {
    const buffer = this.entropy.memory.buffer;
    for (let t = 0; t < 4; t++) {
      const spec = tables.get(t < 2 ? t : 4 + (t - 2));
      const at = TABLES + t * TABLE_BYTES;
      const maxcode = new Int32Array(buffer, at, 18).fill(-1);
      const valptr = new Int32Array(buffer, at + 72, 17).fill(0);
      const mincode = new Int32Array(buffer, at + 140, 17).fill(0);
      const values = new Uint8Array(buffer, at + 208, 256).fill(0);
      const fast = new Uint32Array(buffer, FAST + t * FAST_BYTES, 2 << FAST_BITS).fill(0);
      if (!spec) continue;
      values.set(spec.values);
      writeFastTable(fast, t, spec);
      // canonical slow path (Annex F.2.2.3): per length, the first code, its index and the last code
      const codes = canonicalCodes(spec);
      for (let k = codes.length - 1; k >= 0; k--) {
        const { code, length } = codes[k];
        valptr[length] = k;
        mincode[length] = code;
        if (maxcode[length] < 0) maxcode[length] = code;
      }
    }
  }

  private writeEncodeTables(tables: Map<number, HuffmanSpec>): void {
    const buffer = this.entropy.memory.buffer;
    for (let t = 0; t < 4; t++) {
      const at = CODES + t * CODE_BYTES;
      const code = new Uint32Array(buffer, at, 256).fill(0);
      const size = new Uint8Array(buffer, at + 1024, 256).fill(0);
      const spec = tables.get(t);
      if (!spec) continue;
      for (const c of canonicalCodes(spec)) {
        code[c.symbol] = c.code;
        size[c.symbol] = c.length;
      }
    }
  }
}

/** The canonical Huffman codes of a table (JPEG Annex C), in the order of its values. */
function canonicalCodes(spec: HuffmanSpec): { symbol: number; code: number; length: number }[] {
  const out: { symbol: number; code: number; length: number }[] = [];
  let code = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < spec.bits[length - 1]; i++) out.push({ symbol: spec.values[out.length], code: code++, length });
    code <<= 1;
  }
  return out;
}

/**
 * Fast decoding entries of table slot `t` (0, 1 DC; 2, 3 AC): for every 11-bit prefix that holds a whole code and its
 * extra bits, the packed symbol word and info = bits consumed | coefficient advance << 8 | end of block << 16.
 */
function writeFastTable(fast: Uint32Array, t: number, spec: HuffmanSpec): void {
  const ac = t >= 2;
  for (const { symbol, code, length } of canonicalCodes(spec)) {
    const size = ac ? symbol & 15 : symbol;
    if (length + size > FAST_BITS || size > 11) continue;
    const advance = !ac ? 0 : size > 0 ? (symbol >> 4) + 1 : symbol === 0xf0 ? 16 : 0;
    const end = ac && size === 0 && symbol !== 0xf0 ? 0x10000 : 0;
    const info = (length + size) | (advance << 8) | end;
    const free = FAST_BITS - length - size;
    for (let extra = 0; extra < 1 << size; extra++) {
      const prefix = (((code << size) | extra) << free) >>> 0;
      const word = t | (symbol << 2) | (extra << 10);
      for (let fill = 0; fill < 1 << free; fill++) {
        fast[2 * (prefix | fill)] = word;
        fast[2 * (prefix | fill) + 1] = info;
      }
    }
  }
}

interface StripLayout {
  /** Per block of an MCU: dc table | ac table << 4. */
  blockSel: number[];
  mcusX: number;
  mcuH: number;
}

/** MCU geometry and per-block table selectors of a strip; null for layouts the entropy pass does not take. */
function stripLayout(strip: Strip): StripLayout | null {
  const single = strip.components.length === 1;
  const hmax = math.max(...strip.components.map((c) => c.h));
  const vmax = math.max(...strip.components.map((c) => c.v));
  const blockSel: number[] = [];
  for (const sc of strip.scan) {
    const fc = strip.components.find((c) => c.id === sc.id);
    if (!fc || sc.dc > 1 || sc.ac > 1) return null;
    for (let b = 0; b < (single ? 1 : fc.h * fc.v); b++) blockSel.push(sc.dc | (sc.ac << 4));
  }
  if (blockSel.length > 10) return null;
  return { blockSel, mcusX: math.ceil(strip.width / (single ? 8 : 8 * hmax)), mcuH: single ? 8 : 8 * vmax };
}

function sameLayout(a: Strip, b: Strip): boolean {
  return (
    a.components.length === b.components.length &&
    a.components.every((c, i) => c.id === b.components[i].id && c.h === b.components[i].h && c.v === b.components[i].v) &&
    a.scan.length === b.scan.length &&
    a.scan.every((c, i) => c.id === b.scan[i].id && c.dc === b.scan[i].dc && c.ac === b.scan[i].ac)
  );
}

function sameTables(a: Strip['tables'], b: Strip['tables']): boolean {
  if (a.size !== b.size) return false;
  for (const [slot, t] of a) {
    const u = b.get(slot);
    if (!u || Buffer.compare(Buffer.from(t.bits), Buffer.from(u.bits)) !== 0 || Buffer.compare(Buffer.from(t.values), Buffer.from(u.values)) !== 0) return false;
  }
  return true;
}
