// AssemblyScript source of the JPEG entropy pass used to join strip JPEGs (libs/watermark/src/jpeg-stitch.ts).
// Built by `node tools/wasm/build.mjs` into libs/watermark/src/jpeg-entropy.wasm.ts.
//
// unstuff removes the byte stuffing of a strip's scan; decodeScan reads its Huffman-coded symbols into a symbol
// list; countSymbols gathers their frequencies; encodeScan writes them again with other tables as one restart
// interval. Symbols are packed in a u32: table (0 dc0, 1 dc1, 2 ac0, 3 ac1) | symbol << 2 |
// extra bits << 10. Bit buffers are 64-bit locals (left-aligned when reading) so the hot loops stay in registers.

/** Bytes per decoding table (canonical slow path): maxcode i32[18], valptr i32[17], mincode i32[17], values u8[256]. */
const TABLE_BYTES: usize = 512;
const MAXCODE: usize = 0;
const VALPTR: usize = 72;
const MINCODE: usize = 140;
const VALUES: usize = 208;
/** Bytes per encoding table: code u32[256], size u8[256]. */
const CODE_BYTES: usize = 1280;
/**
 * Fast tables, one per decoding table, indexed by the next 11 bits: (symbol word, info) pairs of u32, where info is
 * bits consumed (code + extra bits) | coefficient advance << 8 | end of block << 16, or 0 when the code and its
 * extra bits do not fit in 11 bits (the slow path then decodes it).
 */
const FAST_BITS: u64 = 11;
const FAST_BYTES: usize = 8 << 11;

/** Copies the scan at `src` to `dst` without the 0x00 after each 0xFF; -1 when a marker occurs inside. */
export function unstuff(src: usize, len: i32, dst: usize): i32 {
  const end = src + <usize>len;
  let q = dst;
  for (let p = src; p < end; p++) {
    const b = load<u8>(p);
    store<u8>(q, b);
    q++;
    if (b == 0xff) {
      if (p + 1 >= end || load<u8>(p + 1) != 0) return -1;
      p++;
    }
  }
  return <i32>(q - dst);
}

/** Canonical decoding (JPEG Annex F.2.2.3) of the code at the top of `peek`: (length << 8 | symbol), or -1. */
function slowSymbol(table: usize, peek: u32): i32 {
  for (let len = 1; len <= 16; len++) {
    const code = <i32>(peek >> (<u32>(16 - len)));
    if (code <= load<i32>(table + MAXCODE + ((<usize>len) << 2))) {
      const index = load<i32>(table + VALPTR + ((<usize>len) << 2)) + code - load<i32>(table + MINCODE + ((<usize>len) << 2));
      return (len << 8) | <i32>load<u8>(table + VALUES + <usize>index);
    }
  }
  return -1;
}

/** Refills the 64-bit reader (valid bits at the top) to at least 32 bits. */
// @ts-ignore: decorator
@inline
function refill(p: usize, acc: u64, nbits: i32): u64 {
  return acc | ((<u64>bswap<u32>(load<u32>(p))) << (<u64>(32 - nbits)));
}

/**
 * Decodes one symbol on the slow path (code or code + extra bits longer than the fast table): returns the packed
 * symbol word in the low 32 bits and the bits consumed above, or -1.
 */
function slowDecode(table: usize, slot: u32, ac: bool, acc: u64): i64 {
  const hit = slowSymbol(table, <u32>(acc >> 48));
  if (hit < 0) return -1;
  const l = hit >> 8;
  const symbol = hit & 255;
  const size = ac ? symbol & 15 : symbol;
  if (size > 11) return -1;
  const extra: u32 = size > 0 ? <u32>((acc << (<u64>l)) >> (<u64>(64 - size))) : 0;
  return (<i64>(l + size) << 32) | <i64>(slot | (<u32>symbol << 2) | (extra << 10));
}

/**
 * Decodes `mcus` MCUs of `blocksPerMcu` blocks (blockSel: per block dc table | ac table << 4) from the unstuffed
 * scan at `data` (`len` bytes followed by at least 8 zero bytes) with the tables at `tables` and their fast tables
 * at `fast`, appending symbols at index `count` of `out` (capacity `cap`). Returns the new count, -1 for corrupt or
 * short data, -2 when `cap` is too small.
 */
export function decodeScan(data: usize, len: i32, blockSel: usize, blocksPerMcu: i32, mcus: i32, tables: usize, fast: usize, out: usize, count: i32, cap: i32): i32 {
  let p = data;
  let acc: u64 = 0;
  let nbits: i32 = 0;
  for (let m = 0; m < mcus; m++) {
    for (let b = 0; b < blocksPerMcu; b++) {
      if (count + 64 > cap) return -2;
      const sel = <u32>load<u8>(blockSel + <usize>b);
      const dcSlot = sel & 1;
      const acSlot = 2 + ((sel >> 4) & 1);
      const acFast = fast + <usize>acSlot * FAST_BYTES;
      if (nbits < 32) {
        acc = refill(p, acc, nbits);
        p += 4;
        nbits += 32;
      }
      const dcEntry = fast + <usize>dcSlot * FAST_BYTES + ((<usize>(acc >> (64 - FAST_BITS))) << 3);
      let info = load<u32>(dcEntry + 4);
      if (info != 0) {
        store<u32>(out + ((<usize>count) << 2), load<u32>(dcEntry));
        acc <<= <u64>(info & 255);
        nbits -= <i32>(info & 255);
      } else {
        const r = slowDecode(tables + <usize>dcSlot * TABLE_BYTES, dcSlot, false, acc);
        if (r < 0) return -1;
        store<u32>(out + ((<usize>count) << 2), <u32>r);
        const used = <i32>(r >> 32);
        acc <<= <u64>used;
        nbits -= used;
      }
      count++;
      let k = 1;
      while (k < 64) {
        if (nbits < 32) {
          acc = refill(p, acc, nbits);
          p += 4;
          nbits += 32;
        }
        const entry = acFast + ((<usize>(acc >> (64 - FAST_BITS))) << 3);
        info = load<u32>(entry + 4);
        let word: u32;
        if (info != 0) {
          word = load<u32>(entry);
          acc <<= <u64>(info & 255);
          nbits -= <i32>(info & 255);
        } else {
          const r = slowDecode(tables + <usize>acSlot * TABLE_BYTES, acSlot, true, acc);
          if (r < 0) return -1;
          word = <u32>r;
          const used = <i32>(r >> 32);
          acc <<= <u64>used;
          nbits -= used;
          const rs = (word >> 2) & 255;
          info = (rs & 15) != 0 ? ((rs >> 4) + 1) << 8 : rs == 0xf0 ? 16 << 8 : 0x10000;
        }
        store<u32>(out + ((<usize>count) << 2), word);
        count++;
        if (info & 0x10000) break;
        k += <i32>((info >> 8) & 255);
      }
      if (k > 64) return -1;
    }
  }
  // bits consumed must lie inside the data (the zero bytes after it are only lookahead)
  if (<i64>(p - data) * 8 - <i64>nbits > <i64>len * 8) return -1;
  return count;
}

/** Adds the frequency of each (table, symbol) of `count` symbols to `freqs` (u32[4 * 256]). */
export function countSymbols(symbols: usize, count: i32, freqs: usize): void {
  for (let i = 0; i < count; i++) {
    const w = load<u32>(symbols + ((<usize>i) << 2));
    const slot = freqs + ((<usize>((w & 3) * 256 + ((w >> 2) & 255))) << 2);
    store<u32>(slot, load<u32>(slot) + 1);
  }
}

/**
 * Writes `count` symbols with the tables at `codes` (per table: code u32[256], size u8[256]) into `out`
 * (capacity `cap` bytes) as one restart interval: stuffed, the last byte padded with one bits.
 * Returns the number of bytes written, or -1 when `cap` is too small.
 */
export function encodeScan(symbols: usize, count: i32, codes: usize, out: usize, cap: i32): i32 {
  let q = out;
  // room for the largest flush (8 bytes, each possibly stuffed)
  const limit = out + <usize>cap - 32;
  let acc: u64 = 0;
  let nb: i32 = 0;
  for (let i = 0; i < count; i++) {
    const w = load<u32>(symbols + ((<usize>i) << 2));
    const table = w & 3;
    const symbol = (w >> 2) & 255;
    const base = codes + <usize>table * CODE_BYTES;
    const extra = <i32>(table < 2 ? symbol : symbol & 15);
    const size = <i32>load<u8>(base + 1024 + <usize>symbol);
    acc = (acc << (<u64>(size + extra))) | (<u64>load<u32>(base + ((<usize>symbol) << 2)) << (<u64>extra)) | <u64>(w >> 10);
    nb += size + extra;
    if (nb >= 32) {
      if (q > limit) return -1;
      for (let j = 0; j < 4; j++) {
        nb -= 8;
        const byte = <u32>(acc >> (<u64>nb)) & 255;
        store<u8>(q, byte);
        q++;
        if (byte == 0xff) {
          store<u8>(q, 0);
          q++;
        }
      }
    }
  }
  const pad = (8 - (nb & 7)) & 7;
  acc = (acc << (<u64>pad)) | ((<u64>1 << (<u64>pad)) - 1);
  nb += pad;
  if (q > limit) return -1;
  while (nb >= 8) {
    nb -= 8;
    const byte = <u32>(acc >> (<u64>nb)) & 255;
    store<u8>(q, byte);
    q++;
    if (byte == 0xff) {
      store<u8>(q, 0);
      q++;
    }
  }
  return <i32>(q - out);
}
