// Hostile metadata against ExifTool: for each container the services hand it (AI detection reads JPEG, PNG, WebP,
// TIFF, GIF, AVIF; anti-AI rewrites JPEG, PNG, WebP, TIFF), a small picture carrying SIZE_MB of metadata ExifTool
// keeps (plain text, XMP of many properties, extended XMP, JPEG comments), read through the AI detector's metadata
// signal and rewritten through the anti-AI opt-out writer (the writer alone: the engine refuses a PNG past its metadata
// budget before). Prints the outcome, the wall time, the peak resident memory (VmHWM) and the CPU time (with its start)
// of the perl process each one started; `ok-*` cases are legitimate files, whose CPU shows how far they are from the
// CPU budget (10 s to read, 15 s to rewrite). Each case starts its own ExifTool; a few minutes in all at 8 MB.
//   SIZE_MB=64 CASES=png-text,jpeg-xmp-ext node -r ./tools/register.js tools/bench-exiftool/main.ts
//   NEST_DEPTH=6000 CASES=png-xmp-nested …   (XMP nested that deep: CPU without memory)
import { MetadataReader } from '@cp/ai-detection';
import { OptOutMetadataWriter } from '@cp/anti-ai';
import { processCpuMillis } from '@cp/bounded-worker';
import { deeplyNestedXmp, withPngChunk, withPngXmp } from '@cp/testing';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';

const SIZE = Number(process.env['SIZE_MB'] ?? 64) * 1024 * 1024;

const picture = (): ReturnType<typeof sharp> => sharp({ create: { width: 64, height: 64, channels: 3, background: '#468' } });

/** XMP as Photoshop bloats it: one DocumentAncestors bag of `bytes` (legitimate, read as one list). */
function ancestorsXmp(bytes: number): Buffer {
  const head = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"><photoshop:DocumentAncestors><rdf:Bag>';
  const items = Array.from({ length: Math.ceil(bytes / 70) }, (_, i) => `<rdf:li>xmp.did:${createHash('md5').update(String(i)).digest('hex')}</rdf:li>`);
  return Buffer.from(`${head}${items.join('')}</rdf:Bag></photoshop:DocumentAncestors></rdf:Description></rdf:RDF></x:xmpmeta>`, 'latin1');
}

/** XMP whose properties all have different names: ExifTool makes a tag of each (`bytes` long in all). */
function manyPropertiesXmp(bytes: number): Buffer {
  const head = '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:e="http://example.com/e/">';
  const tail = '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
  const parts: string[] = [head];
  let length = head.length + tail.length;
  for (let i = 0; length < bytes; i++) {
    const property = `<e:p${i.toString(36)}>v</e:p${i.toString(36)}>`;
    parts.push(property);
    length += property.length;
  }
  parts.push(tail);
  return Buffer.from(parts.join(''), 'latin1');
}

const text = (bytes: number): Buffer => Buffer.alloc(bytes, 0x41);

function jpegSegment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/** Inserts segments after SOI. */
const withJpegSegments = (jpeg: Buffer, segments: Buffer[]): Buffer => Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);

/** Standard XMP naming an extended XMP of `bytes` (many properties) cut in APP1 segments of 65 000 bytes. */
function extendedXmpSegments(bytes: number): Buffer[] {
  const extended = manyPropertiesXmp(bytes);
  const guid = createHash('md5').update(extended).digest('hex').toUpperCase();
  const main = Buffer.from(`http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmpNote:HasExtendedXMP="${guid}"/></rdf:RDF></x:xmpmeta>`, 'latin1');
  const segments = [jpegSegment(0xe1, main)];
  const signature = Buffer.from('http://ns.adobe.com/xmp/extension/\0', 'latin1');
  for (let at = 0; at < extended.length; at += 65_000) {
    const header = Buffer.alloc(8);
    header.writeUInt32BE(extended.length, 0);
    header.writeUInt32BE(at, 4);
    segments.push(jpegSegment(0xe1, Buffer.concat([signature, Buffer.from(guid, 'latin1'), header, extended.subarray(at, at + 65_000)])));
  }
  return segments;
}

function riffChunk(fourcc: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(fourcc, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A lossy WebP as VP8X with an XMP chunk. */
async function webpWithXmp(xmp: Buffer): Promise<Buffer> {
  const simple = await picture().webp().toBuffer();
  const vp8 = simple.subarray(12);
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x04;
  vp8x.writeUIntLE(63, 4, 3);
  vp8x.writeUIntLE(63, 7, 3);
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), riffChunk('VP8X', vp8x), vp8, riffChunk('XMP ', xmp)]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** A little-endian TIFF of 64×64 gray pixels with one extra tag (type 7 UNDEFINED or 2 ASCII) of `data`. */
function tiffWithTag(tag: number, type: number, data: Buffer): Buffer {
  const pixels = Buffer.alloc(64 * 64, 0x80);
  const entries: [number, number, number, number | Buffer][] = [
    [256, 3, 1, 64], [257, 3, 1, 64], [258, 3, 1, 8], [259, 3, 1, 1], [262, 3, 1, 1], [273, 4, 1, 0], [277, 3, 1, 1], [278, 3, 1, 64], [279, 4, 1, pixels.length], [tag, type, data.length, data],
  ].sort((a, b) => (a[0] as number) - (b[0] as number)) as [number, number, number, number | Buffer][];
  const ifdSize = 2 + entries.length * 12 + 4;
  const pixelsAt = 8 + ifdSize;
  const dataAt = pixelsAt + pixels.length;
  const ifd = Buffer.alloc(ifdSize);
  ifd.writeUInt16LE(entries.length, 0);
  entries.forEach(([id, kind, count, value], i) => {
    const at = 2 + i * 12;
    ifd.writeUInt16LE(id, at);
    ifd.writeUInt16LE(kind, at + 2);
    ifd.writeUInt32LE(count, at + 4);
    if (Buffer.isBuffer(value)) ifd.writeUInt32LE(dataAt, at + 8);
    else if (id === 273) ifd.writeUInt32LE(pixelsAt, at + 8);
    else if (kind === 3) ifd.writeUInt16LE(value, at + 8);
    else ifd.writeUInt32LE(value, at + 8);
  });
  const head = Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]);
  return Buffer.concat([head, ifd, pixels, data]);
}

/** A GIF with a comment extension of `bytes` (sub-blocks of 255). */
async function gifWithComment(bytes: number): Promise<Buffer> {
  const gif = await picture().gif().toBuffer();
  const blocks: Buffer[] = [Buffer.from([0x21, 0xfe])];
  for (let left = bytes; left > 0; left -= 255) {
    const n = Math.min(255, left);
    blocks.push(Buffer.from([n]), Buffer.alloc(n, 0x41));
  }
  blocks.push(Buffer.from([0]));
  // before the trailer (0x3b)
  return Buffer.concat([gif.subarray(0, gif.length - 1), ...blocks, gif.subarray(gif.length - 1)]);
}

type Case = { name: string; read: boolean; write: 'png' | 'jpeg' | 'webp' | 'tiff' | null; make: () => Promise<Buffer> };

const CASES: Case[] = [
  { name: 'png-text', read: true, write: 'png', make: async () => withPngChunk(await picture().png().toBuffer(), 'tEXt', Buffer.concat([Buffer.from('Comment\0', 'latin1'), text(SIZE)])) },
  { name: 'png-xmp-many', read: true, write: 'png', make: async () => withPngChunk(await picture().png().toBuffer(), 'iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), manyPropertiesXmp(SIZE)])) },
  { name: 'png-unknown-chunk', read: true, write: 'png', make: async () => withPngChunk(await picture().png().toBuffer(), 'abCd', text(SIZE)) },
  { name: 'jpeg-xmp-ext', read: true, write: 'jpeg', make: async () => withJpegSegments(await picture().jpeg().toBuffer(), extendedXmpSegments(SIZE)) },
  { name: 'jpeg-comments', read: true, write: 'jpeg', make: async () => withJpegSegments(await picture().jpeg().toBuffer(), Array.from({ length: Math.ceil(SIZE / 65_000) }, () => jpegSegment(0xfe, text(65_000)))) },
  { name: 'webp-xmp-many', read: true, write: 'webp', make: () => webpWithXmp(manyPropertiesXmp(SIZE)) },
  { name: 'tiff-xmp-many', read: true, write: 'tiff', make: async () => tiffWithTag(700, 7, manyPropertiesXmp(SIZE)) },
  { name: 'tiff-description', read: true, write: 'tiff', make: async () => tiffWithTag(270, 2, Buffer.concat([text(SIZE), Buffer.alloc(1)])) },
  { name: 'tiff-long-array', read: true, write: 'tiff', make: async () => tiffWithTag(0x9999, 7, text(SIZE)) },
  { name: 'png-xmp-nested', read: true, write: 'png', make: async () => withPngXmp(await picture().png().toBuffer(), deeplyNestedXmp(Number(process.env['NEST_DEPTH'] ?? 6000))) },
  { name: 'gif-comment', read: true, write: null, make: () => gifWithComment(SIZE) },
  // Legitimate files, to check a limit leaves them alone.
  { name: 'ok-jpeg-ancestors', read: true, write: 'jpeg', make: async () => withJpegSegments(await picture().jpeg().toBuffer(), [jpegSegment(0xe1, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), ancestorsXmp(60_000)])), ...extendedXmpSegments(0).slice(1)]) },
  { name: 'ok-png-ancestors', read: true, write: 'png', make: async () => withPngChunk(await picture().png().toBuffer(), 'iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), ancestorsXmp(SIZE)])) },
  { name: 'ok-png-workflow', read: true, write: 'png', make: async () => withPngChunk(await picture().png().toBuffer(), 'tEXt', Buffer.concat([Buffer.from('workflow\0', 'latin1'), Buffer.from(JSON.stringify({ nodes: Array.from({ length: Math.ceil(SIZE / 120) }, (_, id) => ({ id, type: 'KSampler', widgets_values: [id, 'euler', 20] })) }), 'latin1')])) },
  { name: 'ok-png-4k', read: true, write: 'png', make: () => sharp(Buffer.from(Array.from({ length: 4096 * 4096 * 3 }, () => Math.floor(Math.random() * 256))), { raw: { width: 4096, height: 4096, channels: 3 } }).png().toBuffer() },
  { name: 'ok-tiff-8k', read: true, write: 'tiff', make: () => sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#468' } }).tiff().toBuffer() },
  ...(process.env['FILE'] ? [{ name: `file:${process.env['FILE']}`, read: true, write: null, make: async () => readFileSync(process.env['FILE'] as string) }] : []),
];

/**
 * Peak resident memory (VmHWM) and CPU time of the perl processes seen while `work` runs (each started by it), and what
 * it cost this process (CPU, the longest pause of its event loop: exiftool-vendored gathers ExifTool's answer in the
 * caller's thread).
 */
async function measured<T>(pids: () => number[], work: () => Promise<T>): Promise<{ result: T | Error; ms: number; peakMb: number; perlCpuMs: number; cpuMs: number; stallMs: number }> {
  let peak = 0;
  const perlCpu = new Map<number, number>();
  let stall = 0;
  let tick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - tick - 10);
    tick = now;
  }, 10);
  const cpu = process.cpuUsage();
  const sample = (): void => {
    for (const pid of pids()) {
      try {
        const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
        if (hwm) peak = Math.max(peak, Number(hwm[1]));
        const cpu = processCpuMillis(pid);
        if (cpu !== null) perlCpu.set(pid, cpu);
      } catch {
        // ended meanwhile
      }
    }
  };
  const timer = setInterval(sample, 20);
  const started = performance.now();
  let result: T | Error;
  try {
    result = await work();
  } catch (error) {
    result = error instanceof Error ? error : new Error(String(error));
  }
  const ms = performance.now() - started;
  sample();
  clearInterval(timer);
  clearInterval(ticker);
  const used = process.cpuUsage(cpu);
  const perlCpuMs = Math.round([...perlCpu.values()].reduce((sum, cpu) => sum + cpu, 0));
  return { result, ms, peakMb: Math.round(peak / 1024), perlCpuMs, cpuMs: Math.round((used.user + used.system) / 1000), stallMs: Math.round(stall) };
}

/** The reader's and writer's ExifTool, private to them: read here only for the ids of the processes to measure. */
interface WithTool {
  exiftool: { pids: number[] } | Promise<{ tool: { pids: number[] } }> | undefined;
}

async function main(): Promise<void> {
  const only = process.env['CASES']?.split(',');
  for (const c of CASES.filter((x) => !only || only.includes(x.name))) {
    const file = await c.make();
    const line: string[] = [`${c.name.padEnd(20)} ${(file.length / 1024 / 1024).toFixed(1).padStart(6)} MB`];
    if (c.read) {
      const reader = new MetadataReader();
      const tool = (reader as unknown as WithTool).exiftool as { pids: number[] };
      const { result, ms, peakMb, perlCpuMs, cpuMs, stallMs } = await measured(() => tool.pids, () => reader.read(file));
      const outcome = result instanceof Error ? `error: ${result.message.slice(0, 60)}` : result.evidence.map((e) => e.finding).join('+') || 'no evidence';
      line.push(`read ${(ms / 1000).toFixed(1)} s ${peakMb} MB, perl ${perlCpuMs} ms CPU, node ${cpuMs} ms CPU, stall ${stallMs} ms (${outcome})`);
      await reader.close();
    }
    if (c.write) {
      const writer = new OptOutMetadataWriter();
      let pids: number[] = [];
      const { result, ms, peakMb, perlCpuMs } = await measured(() => pids, () => {
        const written = writer.write(file, c.write as 'png', { dataMining: 'DMI-PROHIBITED-AIMLTRAINING', otherConstraints: 'x', rights: 'x' });
        // The writer starts its ExifTool on the first call: its process ids once it is there.
        void ((writer as unknown as WithTool).exiftool as Promise<{ tool: { pids: number[] } }>).then(({ tool }) => {
          const poll = setInterval(() => { pids = tool.pids.length > 0 ? tool.pids : pids; }, 10);
          void written.finally(() => clearInterval(poll)).catch(() => undefined);
        });
        return written;
      });
      const outcome = result instanceof Error ? `error: ${result.message.slice(0, 60)}` : `${(result.length / 1024 / 1024).toFixed(1)} MB out`;
      line.push(`rewrite ${(ms / 1000).toFixed(1)} s ${peakMb} MB, perl ${perlCpuMs} ms CPU (${outcome})`);
      await writer.close();
    }
    console.log(line.join(' | '));
  }
}

void main();
