// Decoder fuzzing of the image and PDF engines through their public APIs, in a child process with a
// capped heap. Inputs are mutated from small fixtures generated here (no corpus in tests): truncation
// at random offsets, bit flips, byte overwrites, declared dimensions of 65 535 × 65 535, deeply nested and
// cyclic PDF objects, thousands of pages, a Flate stream that expands ×1000.
// Property: every call ends in a result or a typed engine error (WatermarkError / PdfWatermarkError)
// within its CPU bound, and the worker process neither dies, hangs nor exceeds its memory bound.
//   DECODER_FUZZ_SEED, DECODER_FUZZ_RUNS: replay or lengthen (npm run fuzz).
import fc from 'fast-check';
import { ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import type { DecodeReply, DecodeRequest } from './decode-worker';

const SEED = process.env.DECODER_FUZZ_SEED ? Number(process.env.DECODER_FUZZ_SEED) : 7_2020;
const RUNS = Number(process.env.DECODER_FUZZ_RUNS ?? 40);
/**
 * Bounds, checked per call: the CPU it used (the worker's and its children's: the PDF renderer, ExifTool) and the
 * worker's peak resident memory (its V8 heap is capped at 512 MB). CPU, not wall time: the huge MediaBox took 12.8-15.3 s
 * alone of what was a 45 s wall bound, and went past it (a finding) with the test pinned to a core shared with three
 * busy processes, while its CPU stays at 8.8-9.8 s. A call that does not answer within HANG_FACTOR times its bound is
 * a finding too (a hang that waits uses no CPU).
 */
const IMAGE_TIME_BOUND_MS = 15_000;
const PDF_TIME_BOUND_MS = 45_000;
const HANG_FACTOR = 4;
const RSS_BOUND_MB = 1536;
const ROOT = path.resolve(__dirname, '../..');

class DecodeWorker {
  private child: ChildProcess;
  private nextId = 1;
  exits = 0;

  constructor() {
    this.child = this.start();
  }

  private start(): ChildProcess {
    const child = fork(path.join(__dirname, 'decode-worker.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', path.join(ROOT, 'tools/register.js'), '--max-old-space-size=512'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    child.stderr?.resume();
    return child;
  }

  /** One call; a timeout or a death of the worker is an answer too (and the worker is replaced). */
  call(request: Omit<DecodeRequest, 'id'>, timeoutMs: number): Promise<DecodeReply | { outcome: 'timeout' | 'crash'; detail: string }> {
    const id = this.nextId++;
    const child = this.child;
    return new Promise((resolve) => {
      const finish = (answer: DecodeReply | { outcome: 'timeout' | 'crash'; detail: string }): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(answer);
      };
      const onMessage = (reply: DecodeReply): void => {
        if (reply.id === id) {
          finish(reply);
        }
      };
      const onExit = (code: number | null, signal: string | null): void => {
        this.exits += 1;
        this.child = this.start();
        finish({ outcome: 'crash', detail: `worker exited (${code ?? signal})` });
      };
      const timer = setTimeout(() => {
        child.off('exit', onExit);
        child.kill('SIGKILL');
        this.child = this.start();
        finish({ outcome: 'timeout', detail: `no answer in ${timeoutMs} ms` });
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ ...request, id });
    });
  }

  stop(): void {
    this.child.disconnect();
  }
}

async function imageFixtures(): Promise<Buffer[]> {
  const width = 96;
  const height = 64;
  const raw = Buffer.alloc(width * height * 3);
  for (let index = 0; index < raw.length; index += 1) {
    raw[index] = (index * 7 + Math.floor(index / 97) * 13) & 0xff;
  }
  const image = () => sharp(raw, { raw: { width, height, channels: 3 } });
  return Promise.all([image().png().toBuffer(), image().jpeg({ quality: 90 }).toBuffer(), image().webp().toBuffer(), image().tiff().toBuffer()]);
}

async function pdfFixture(pages: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let page = 0; page < pages; page += 1) {
    document.addPage([200, 200]).drawText(`page ${page + 1}`, { x: 20, y: 100, size: 18, font });
  }
  return Buffer.from(await document.save());
}

const CRC_TABLE = Array.from({ length: 256 }, (_unused, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) {
    c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG whose IHDR declares 65 535 × 65 535 with a valid CRC, so only the size check can stop it. */
function hugePng(png: Buffer): Buffer {
  const copy = Buffer.from(png);
  copy.writeUInt32BE(65_535, 16);
  copy.writeUInt32BE(65_535, 20);
  copy.writeUInt32BE(crc32(copy.subarray(12, 29)), 29);
  return copy;
}

/** A JPEG whose SOF declares 65 535 × 65 535. */
function hugeJpeg(jpeg: Buffer): Buffer {
  const copy = Buffer.from(jpeg);
  for (let offset = 2; offset + 9 < copy.length; ) {
    const marker = copy[offset + 1];
    if (marker >= 0xc0 && marker <= 0xc2) {
      copy.writeUInt16BE(65_535, offset + 5);
      copy.writeUInt16BE(65_535, offset + 7);
      return copy;
    }
    offset += 2 + copy.readUInt16BE(offset + 2);
  }
  return copy;
}

/** A hand-written PDF from object bodies, with a correct xref table. */
function rawPdf(objects: string[]): Buffer {
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function hostilePdfs(): Array<[string, Buffer]> {
  const page = (extra: string) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R ${extra} >>`;
  const content = '<< /Length 0 >>\nstream\n\nendstream';
  const bomb = deflateSync(Buffer.alloc(16 * 1024 * 1024, 0x20));
  return [
    ['nested arrays 20 000 deep', rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(`/Deep ${'['.repeat(20_000)}${']'.repeat(20_000)}`), content])],
    ['cyclic page tree', rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>', page(''), content])],
    ['page that is its own parent', rawPdf(['<< /Type /Catalog /Pages 3 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Pages /Parent 3 0 R /Kids [3 0 R] /Count 1 >>', content])],
    ['Count of a billion pages', rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1000000000 >>', page(''), content])],
    [
      'Flate content stream expanding to 16 MB (×1000)',
      rawPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        page(''),
        `<< /Length ${bomb.length} /Filter /FlateDecode >>\nstream\n${bomb.toString('latin1')}\nendstream`,
      ]),
    ],
    ['huge MediaBox', rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400000 14400000] /Contents 4 0 R >>', content])],
  ];
}

/** Truncations, bit flips and byte overwrites of a fixture. */
function mutationOf(fixtures: Buffer[]): fc.Arbitrary<{ fixture: number; bytes: Buffer; description: string }> {
  return fc.nat({ max: fixtures.length - 1 }).chain((fixture) => {
    const source = fixtures[fixture];
    return fc.oneof(
      fc.nat({ max: source.length - 1 }).map((cut) => ({ fixture, bytes: source.subarray(0, cut), description: `truncated at ${cut}` })),
      fc.array(fc.tuple(fc.nat({ max: source.length - 1 }), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 24 }).map((flips) => {
        const bytes = Buffer.from(source);
        for (const [offset, bit] of flips) {
          bytes[offset] ^= 1 << bit;
        }
        return { fixture, bytes, description: `${flips.length} bit flips` };
      }),
      fc.tuple(fc.nat({ max: Math.min(source.length - 1, 400) }), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([offset, patch]) => {
        const bytes = Buffer.from(source);
        bytes.set(patch.subarray(0, bytes.length - offset), offset);
        return { fixture, bytes, description: `${patch.length} bytes overwritten at ${offset} (headers)` };
      }),
    );
  });
}

describe('decoder fuzzing of the image and PDF engines', () => {
  const worker = new DecodeWorker();
  const findings: string[] = [];
  const outcomes = new Map<string, number>();
  let slowest = 0;
  let mostCpu = 0;
  let peakRss = 0;

  afterAll(() => {
    worker.stop();
    process.stdout.write(
      `decoder fuzz: seed ${SEED}, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}, slowest ${slowest} ms, most CPU ${mostCpu} ms, worker peak RSS ${peakRss} MB, findings ${findings.length}\n`,
    );
  });

  async function check(label: string, request: Omit<DecodeRequest, 'id'>, boundMs: number): Promise<void> {
    const answer = await worker.call(request, boundMs * HANG_FACTOR);
    outcomes.set(answer.outcome, (outcomes.get(answer.outcome) ?? 0) + 1);
    // Without /proc, the wall time stands for the CPU (as before CPU was read).
    const used = 'ms' in answer ? (answer.cpuMs ?? answer.ms) : 0;
    if ('ms' in answer) {
      slowest = Math.max(slowest, answer.ms);
      mostCpu = Math.max(mostCpu, used);
      peakRss = Math.max(peakRss, answer.peakRssMb);
    }
    if (!('ms' in answer) || answer.outcome === 'untyped-error') {
      findings.push(`${label} (${request.operation}): ${answer.outcome} ${answer.detail}`);
    } else if (used > boundMs || answer.peakRssMb > RSS_BOUND_MB) {
      findings.push(`${label} (${request.operation}): ${used} ms of CPU (bound ${boundMs}), peak RSS ${answer.peakRssMb} MB (bound ${RSS_BOUND_MB})`);
    }
  }

  it(`images: ${RUNS} mutated inputs across inspect, extract and embed, and declared sizes of 65 535², end in a result or a typed error`, async () => {
    const fixtures = await imageFixtures();
    await check('PNG declaring 65535×65535', { operation: 'embed-image', input: hugePng(fixtures[0]).toString('base64') }, IMAGE_TIME_BOUND_MS);
    await check('JPEG declaring 65535×65535', { operation: 'extract-image', input: hugeJpeg(fixtures[1]).toString('base64') }, IMAGE_TIME_BOUND_MS);
    const samples = fc.sample(mutationOf(fixtures), { seed: SEED, numRuns: RUNS });
    for (const [index, sample] of samples.entries()) {
      const operation = (['inspect-image', 'extract-image', 'embed-image'] as const)[index % 3];
      await check(`fixture ${sample.fixture}, ${sample.description}`, { operation, input: sample.bytes.toString('base64') }, IMAGE_TIME_BOUND_MS);
    }
    expect(findings).toEqual([]);
    expect(worker.exits).toBe(0);
  }, 600_000);

  it('PDFs: mutated, nested, cyclic, 2 000 pages, a Flate bomb end in a result or a typed error', async () => {
    const original = await pdfFixture(2);
    const cases: Array<[string, Buffer]> = [...hostilePdfs(), ['2 000 pages', await pdfFixture(2000)]];
    for (const sample of fc.sample(mutationOf([original]), { seed: SEED, numRuns: Math.max(4, Math.floor(RUNS / 5)) })) {
      cases.push([sample.description, sample.bytes]);
    }
    for (const [index, [label, bytes]] of cases.entries()) {
      const operation = index % 2 === 0 ? 'embed-pdf' : 'extract-pdf';
      await check(label, { operation, input: bytes.toString('base64'), original: original.toString('base64') }, PDF_TIME_BOUND_MS);
    }
    expect(findings).toEqual([]);
    expect(worker.exits).toBe(0);
  }, 900_000);
});
