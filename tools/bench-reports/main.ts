/*
 * Reports benchmark: what rendering an AI detection report costs the reports service, for an ordinary order and for
 * the worst one a client can cause. The evidence goes through the detector's own code (`c2paEvidence`,
 * `metadataEvidence`, `fitEvidence`): a Content Credentials chain of 32 manifests whose every text has the reader's
 * 500 characters, cut to the per-image size limit exactly as the detector cuts it, and the longest metadata texts.
 * Each case runs in a child process of its own (peak resident memory is per process). Prints a table; writes
 * bench-results/reports.json.
 *   node -r ./tools/register.js tools/bench-reports/main.ts [--case <name>] [--images 20]
 * Times are of one render on this machine (no warm-up beyond the fonts): compare runs of one machine only.
 */
/* eslint-disable @nx/enforce-module-boundaries -- a benchmark of the reports service's own renderer and the detector's own evidence code */
import { c2paEvidence, fitEvidence, type ManifestStore } from '@cp/ai-detection';
import { metadataEvidence } from '../../libs/ai-detection/src/metadata/metadata.signal';
import { AiDetectionEvidence } from '@cp/contracts';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { AiDetectionReportData, AnalysedImage, buildAiDetectionReportDocument } from '../../apps/reports/src/rendering/ai-detection-report-document';
import { renderPdf } from '../../apps/reports/src/rendering/pdf-renderer';

const OUT = 'bench-results';
const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

/** One character repeated to the reader's 500: what each text of the file is made of. */
const FILLS: Record<string, string> = {
  // Latin without a space: one unbreakable word, wrapped by break-all
  latin: 'A',
  // DEL: one byte of JSON, drawn by no embedded font, so printed as its code point
  del: '\u007f',
  // Thai: three bytes, drawn by no embedded font
  thai: '\u0e01',
  // an emoji: four bytes, drawn by none
  emoji: '\u{1f389}',
  // a kanji outside the BMP, drawn by the Japanese font only: every one a piece of its own (no break inside a pair)
  kanji: '\u{2000b}',
  hangul: '한',
};

const repeat = (fill: string, characters: number): string => fill.repeat(Math.ceil(characters / fill.length)).slice(0, characters * fill.length);

/** The longest chain the C2PA reader lists, each text at its 500 characters of `fill`. */
function hostileStore(fill: string): ManifestStore {
  const text = (tag: string) => `${tag}${repeat(fill, 500 - tag.length)}`;
  const chain = Array.from({ length: 32 }, (_, index) => ({
    label: text(`urn:c2pa:${index}:`),
    depth: Math.min(index, 8),
    relationship: index === 0 ? 'active' : text('parentOf'),
    title: text('t'),
    signer: text('s'),
    issuer: text('i'),
    signedAt: text('d'),
    signerTrusted: false,
    timeStampTrusted: null,
    claimGenerator: text('g'),
    actions: Array.from({ length: 20 }, (_, a) => text(`a${a}`)),
    omittedActions: 180,
    digitalSourceType: `http://cv.iptc.org/newscodes/digitalsourcetype/${repeat(fill, 400)}`,
  }));
  return {
    active_manifest: chain[0].label,
    manifests: {
      [chain[0].label]: {
        claim_generator_info: [{ name: text('g') }],
        assertions: [{ label: 'c2pa.actions', data: { actions: [{ action: 'c2pa.created', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' }] } }],
      },
    },
    validation_state: 'Valid',
    validation_status: [{ code: 'signingCredential.untrusted' }],
    chain,
    chain_omitted: 200,
  };
}

function hostileEvidence(fill: string): AiDetectionEvidence[] {
  const long = repeat(fill, 500);
  const tags = { DigitalSourceType: long, Parameters: long, Prompt: long, Workflow: long, 'Sd-metadata': long, Dream: long, InvokeaiMetadata: long, Software: `stable diffusion ${long}` };
  // as the detector does: every signal's evidence, then the per-image size limit
  return fitEvidence([...c2paEvidence(hostileStore(fill)), ...metadataEvidence(tags)]);
}

/** What an ordinary order carries: a trusted generator's manifest and an SD mark. */
function ordinaryEvidence(): AiDetectionEvidence[] {
  return [
    {
      signal: 'c2pa', finding: 'c2pa.ai', description: 'Content Credentials (signature valid, signer on the C2PA trust list) declare the source type "trainedAlgorithmicMedia", made by Example Generator 2.1.', direction: 'ai', weight: 4, details: {},
      provenance: [{ label: 'urn:c2pa:1', depth: 0, relationship: 'active', title: 'image.png', signer: 'Example Generator signer', issuer: 'Example CA', signedAt: '2026-11-20T09:00:00Z', signerTrusted: true, timeStampTrusted: true, claimGenerator: 'Example Generator 2.1', actions: ['c2pa.created'], digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' }],
    },
    { signal: 'sdWatermark', finding: 'sdWatermark.detected', description: 'Stable Diffusion invisible mark found: 130/136 bits.', direction: 'ai', weight: 3, details: {} },
  ];
}

function images(count: number, evidence: AiDetectionEvidence[], fileName: (index: number) => string): AnalysedImage[] {
  return Array.from({ length: count }, (_, index) => ({
    input: { role: 'input' as const, fileName: fileName(index), size: 2_000_000, sha256: index.toString(16).padStart(64, '0'), thumbnailPng: null, replaced: false },
    probability: 0.62,
    category: 'uncertain_ai' as const,
    verdict: 'cannot_be_determined' as const,
    noEvidence: false,
    statement: '2 finding(s) counted; the probability is the documented fusion of their weights.',
    evidence,
    heatmapNote: 'Only file-level evidence: no signal gives per-region evidence for this image, so no heatmap is drawn.',
    heatmapPng: null,
  }));
}

interface Measured {
  case: string;
  images: number;
  evidenceJsonBytes: number;
  buildMs: number;
  renderMs: number;
  longestBlockMs: number;
  peakRssMb: number;
  pdfBytes: number;
  pages: number;
}

/** One case in this process: builds, renders, and reports the longest the event loop stood still. */
async function measure(name: string, count: number): Promise<Measured> {
  const fill = FILLS[name.replace(/^hostile-/, '')];
  const evidence = name === 'ordinary' ? ordinaryEvidence() : hostileEvidence(fill);
  const fileName = name === 'ordinary' ? (index: number) => `photo-${index}.jpg` : (index: number) => `${repeat(fill, 240)}-${index}.png`;
  // the fonts are loaded once per service: not counted
  await renderPdf(await buildAiDetectionReportDocument(data(images(1, ordinaryEvidence(), () => 'warm.png'))));
  const monitor = monitorEventLoopDelay({ resolution: 10 });
  let longestGap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  monitor.enable();
  const started = performance.now();
  const definition = await buildAiDetectionReportDocument(data(images(count, evidence, fileName)));
  const built = performance.now();
  const pdf = await renderPdf(definition);
  const rendered = performance.now();
  // the ticks that were due during a synchronous stretch run after it: wait for them before reading the gaps
  await sleep(30);
  clearInterval(ticker);
  monitor.disable();
  return {
    case: name,
    images: count,
    evidenceJsonBytes: Buffer.byteLength(JSON.stringify(evidence)),
    buildMs: Math.round(built - started),
    renderMs: Math.round(rendered - started),
    longestBlockMs: Math.round(Math.max(longestGap, monitor.max / 1e6)),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    pdfBytes: pdf.length,
    pages: (pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length,
  };
}

function data(list: AnalysedImage[]): AiDetectionReportData {
  return {
    locale: 'ja-JP',
    orderId: '5550001',
    orderName: 'ai-detection-5550001',
    mode: 'live',
    createdAt: '2026-11-20T10:00:00.000Z',
    completedAt: '2026-11-20T10:01:00.000Z',
    expiresAt: '2026-12-20T10:00:00.000Z',
    probability: 0.62,
    category: 'uncertain_ai',
    images: list,
    issuer: 'Bench issuer',
    generatedAt: new Date('2026-11-21T00:00:00.000Z'),
    reportReference: 'RPT-5550001-ja-JP-1',
  };
}

async function main(): Promise<void> {
  const count = Number(argument('--images') ?? 20);
  const only = argument('--case');
  if (only) {
    process.stdout.write(`${JSON.stringify(await measure(only, count))}\n`);
    return;
  }
  const results: Measured[] = [];
  for (const name of ['ordinary', ...Object.keys(FILLS).map((fill) => `hostile-${fill}`)]) {
    // a process per case: peak memory is the case's own
    const out = execFileSync(process.execPath, ['-r', './tools/register.js', __filename, '--case', name, '--images', String(count)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const result = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Measured;
    results.push(result);
    process.stdout.write(
      `${result.case.padEnd(16)} images ${result.images}  evidence ${String(result.evidenceJsonBytes).padStart(6)} B/image  build ${String(result.buildMs).padStart(6)} ms  render ${String(result.renderMs).padStart(7)} ms  longest block ${String(result.longestBlockMs).padStart(7)} ms  peak RSS ${String(result.peakRssMb).padStart(5)} MB  ${result.pages} pages  ${Math.round(result.pdfBytes / 1024)} KiB\n`,
    );
  }
  mkdirSync(OUT, { recursive: true });
  writeFileSync(`${OUT}/reports.json`, `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
