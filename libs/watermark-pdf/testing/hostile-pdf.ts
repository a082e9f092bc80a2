import { createDeflate, deflateSync } from 'node:zlib';

/** A one-page PDF (200×200 pt) whose content stream holds `data` as it is, with `filter` as its /Filter. */
export function onePagePdf(data: Buffer, filter = '/FlateDecode'): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (chunk: Buffer | string): void => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buf);
    length += buf.length;
  };
  const object = (n: number, body: string): void => {
    offsets[n] = length;
    push(`${n} 0 obj\n${body}\nendobj\n`);
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>');
  offsets[4] = length;
  push(`4 0 obj\n<< /Length ${data.length} /Filter ${filter} >>\nstream\n`);
  push(data);
  push('\nendstream\nendobj\n');
  const xref = length;
  let table = 'xref\n0 5\n0000000000 65535 f \n';
  for (let i = 1; i <= 4; i++) table += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  push(table);
  push(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
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
