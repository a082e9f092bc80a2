import { createDeflate, deflateRawSync, deflateSync } from 'node:zlib';

/** One indirect object of a file made by `pdfFile`: a plain body, or a stream's dictionary (without /Length) and data. */
export type FileObject = { n: number; body: string } | { n: number; dictionary: string; data: Buffer };

/**
 * A classic PDF file (catalog object 1): the objects in the order given, a cross-reference table with an entry for
 * each number below `size` (free for numbers not written, e.g. objects inside an object stream) and the trailer.
 */
export function pdfFile(objects: readonly FileObject[], size = Math.max(...objects.map((object) => object.n)) + 1): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (chunk: Buffer | string): void => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buf);
    length += buf.length;
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  for (const object of objects) {
    offsets[object.n] = length;
    if ('body' in object) {
      push(`${object.n} 0 obj\n${object.body}\nendobj\n`);
    } else {
      push(`${object.n} 0 obj\n<< /Length ${object.data.length} ${object.dictionary} >>\nstream\n`);
      push(object.data);
      push('\nendstream\nendobj\n');
    }
  }
  const xref = length;
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let i = 1; i < size; i++) table += offsets[i] === undefined ? '0000000000 00000 f \n' : `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  push(table);
  push(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A one-page PDF (200×200 pt) whose content stream holds `data` as it is, with `filter` as its /Filter. */
export function onePagePdf(data: Buffer, filter = '/FlateDecode'): Buffer {
  return pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { n: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>' },
    { n: 4, dictionary: `/Filter ${filter}`, data },
  ]);
}

/**
 * A one-page PDF whose page dictionary (object 5) lives in an object stream (object 4) holding `data` as it is, after
 * `dictionary` (the stream dictionary's keys besides /Type, /N, /First and /Length, e.g. its /Filter). `extra`
 * objects (number → body, numbers above 5) are written before it. pdf-lib decodes such a stream while it parses.
 */
export function objectStreamPdf(data: Buffer, dictionary: string, extra: Record<number, string> = {}): Buffer {
  return pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [5 0 R] /Count 1 >>' },
    ...Object.entries(extra).map(([n, body]) => ({ n: Number(n), body })),
    { n: 4, dictionary: `/Type /ObjStm /N 1 /First ${OBJECT_STREAM_HEADER.length} ${dictionary}`, data },
  ], Math.max(6, ...Object.keys(extra).map((n) => Number(n) + 1)));
}

/** The object-number table of objectStreamPdf's object stream (object 5 at offset 0). */
export const OBJECT_STREAM_HEADER = '5 0 ';

/**
 * The content of objectStreamPdf's object stream: the page dictionary, then spaces up to `size` bytes (which pdf-lib
 * reads past: an object stream that inflates to `size`).
 */
export function objectStreamContent(size: number): Buffer {
  const body = Buffer.alloc(size, 0x20);
  body.write(`${OBJECT_STREAM_HEADER}<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>`, 0, 'latin1');
  return body;
}

/**
 * objectStreamPdf's page dictionary carrying an array of `count` copies of `element` (e.g. `0 ` or `<<>>`), deflated:
 * a few KB that pdf-lib turns into `count` objects of its heap while it parses (every object of an object stream is
 * parsed, referenced or not).
 */
export function objectStreamArrayPdf(count: number, element = '0 '): Buffer {
  const content = `${OBJECT_STREAM_HEADER}<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /X [${element.repeat(count)}] >>`;
  return objectStreamPdf(deflateSync(Buffer.from(content, 'latin1'), { level: 9 }), '/Filter /FlateDecode');
}

/**
 * `content` as a zlib stream whose first block is a stored one ending in `\nendstream\n` (written over `content` at
 * `at`, which must be padding): a scanner that takes the first `endstream` for the data's end sees only that block.
 */
export function zlibWithEndstreamInside(content: Buffer, at: number): Buffer {
  const text = Buffer.from('\nendstream\n', 'latin1');
  const bytes = Buffer.from(content);
  text.copy(bytes, at);
  const first = bytes.subarray(0, at + text.length);
  const stored = Buffer.from([0x00, first.length & 0xff, first.length >> 8, ~first.length & 0xff, (~first.length >> 8) & 0xff]);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), stored, first, deflateRawSync(bytes.subarray(first.length), { level: 9 }), Buffer.alloc(4)]);
}

/** `size` zero bytes deflated, made a MiB at a time (the zeros are never all in memory). */
export function deflatedZeros(size: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const deflate = createDeflate({ level: 9 });
    const out: Buffer[] = [];
    deflate.on('data', (chunk: Buffer) => out.push(chunk));
    deflate.on('end', () => resolve(Buffer.concat(out)));
    deflate.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024);
    let left = size;
    const write = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!deflate.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          deflate.once('drain', write);
          return;
        }
      }
      deflate.end();
    };
    write();
  });
}

/** A content stream inflating to `size` bytes of zeros from a few hundred KiB: an inflation bomb. */
export async function inflationBombPdf(size: number): Promise<Buffer> {
  return onePagePdf(await deflatedZeros(size));
}

/**
 * A page whose content is one text array of `count` numbers: small once deflated, but pdf.js builds a JavaScript
 * array of them, far past a small renderer heap.
 */
export function heapHungryPdf(count: number): Buffer {
  return onePagePdf(deflateSync(Buffer.from(`BT /F1 1 Tf [${'1 '.repeat(count)}] TJ ET`, 'latin1')));
}

/**
 * A page that draws a form XObject which draws the next one `fan` times, `depth` levels down to one filled rectangle:
 * under a kilobyte per level, and fan^depth fills for pdf.js (6 levels of 10: about ten minutes of one core).
 */
export function nestedFormsPdf(depth: number, fan: number): Buffer {
  const first = 5;
  const forms: FileObject[] = [];
  for (let level = 0; level <= depth; level++) {
    const n = first + level;
    const data = level === depth
      ? '0 0 1 rg 0 0 200 200 re f'
      : Array.from({ length: fan }, (_, i) => `q 1 0 0 1 ${i % 3} ${i % 2} cm /N Do Q`).join('\n');
    const resources = level === depth ? '' : `/Resources << /XObject << /N ${n + 1} 0 R >> >>`;
    forms.push({ n, dictionary: `/Type /XObject /Subtype /Form /BBox [0 0 200 200] ${resources}`, data: Buffer.from(data, 'latin1') });
  }
  return pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { n: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /X ${first} 0 R >> >> /Contents 4 0 R >>` },
    { n: 4, dictionary: '', data: Buffer.from('/X Do', 'latin1') },
    ...forms,
  ]);
}

/**
 * A raw JPEG 2000 codestream of empty packets (a flat grey image) declaring `width` × `height` × `components`, with
 * `levels` wavelet decomposition levels, in one tile: under 200 bytes whatever the size it declares.
 */
export function jpxCodestream(width: number, height: number, components: number, levels: number): Buffer {
  const u16 = (v: number): Buffer => Buffer.from([v >> 8, v & 0xff]);
  const u32 = (v: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    return b;
  };
  const perComponent = Buffer.from(Array.from({ length: components }, () => [7, 1, 1]).flat());
  const siz = Buffer.concat([Buffer.from([0xff, 0x51]), u16(38 + 3 * components), u16(0), u32(width), u32(height), u32(0), u32(0), u32(width), u32(height), u32(0), u32(0), u16(components), perComponent]);
  // one layer, no colour transform, `levels` levels, 64 × 64 code blocks, reversible 5/3 wavelet; no quantisation
  const cod = Buffer.concat([Buffer.from([0xff, 0x52]), u16(12), Buffer.from([0, 0]), u16(1), Buffer.from([0, levels, 4, 4, 0, 1])]);
  const qcd = Buffer.concat([Buffer.from([0xff, 0x5c]), u16(3 + 3 * levels + 1), Buffer.from([0x40]), Buffer.alloc(3 * levels + 1, 0x48)]);
  // an empty packet is one zero byte: one per resolution and component
  const packets = Buffer.alloc(components * (levels + 1));
  const tile = Buffer.concat([Buffer.from([0xff, 0x90]), u16(10), u16(0), u32(14 + packets.length), Buffer.from([0, 1, 0xff, 0x93]), packets]);
  return Buffer.concat([Buffer.from([0xff, 0x4f]), siz, cod, qcd, tile, Buffer.from([0xff, 0xd9])]);
}

/** A one-page PDF drawing one image XObject whose data is `data` as it is, with `filter` (and any other keys) as given. */
export function imagePdf(data: Buffer, width: number, height: number, keys = '/Filter /JPXDecode'): Buffer {
  return pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { n: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>' },
    { n: 4, dictionary: '', data: Buffer.from('q 200 0 0 200 0 0 cm /Im0 Do Q', 'latin1') },
    { n: 5, dictionary: `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} ${keys}`, data },
  ]);
}
