// The AI detection report in its three languages, rendered to PDF and read back as text: the assessment, every
// image with its evidence (localized findings), the heatmap when there is one, the limits, and the hashes.
import { ReportLocale } from '@cp/contracts';
import { closePdfRenderer, pdfPageTexts } from '@cp/watermark-pdf';
import sharp from 'sharp';
import { AI_DETECTION_REPORT_MESSAGES } from './ai-detection-report-messages';
import { AiDetectionReportData, AnalysedImage, buildAiDetectionReportDocument } from './ai-detection-report-document';
import { FILE_TEXT_LIMITS } from './file-text-budget';
import { closePdfRenderer as closeReportRenderer, renderPdf } from './pdf-renderer';

async function data(locale: ReportLocale, overrides: Partial<AiDetectionReportData> = {}): Promise<AiDetectionReportData> {
  const heatmapPng = await sharp({ create: { width: 64, height: 36, channels: 3, background: '#c03030' } }).png().toBuffer();
  return {
    locale,
    orderId: '5550001',
    orderName: 'ai-5550001',
    mode: 'live',
    createdAt: '2026-11-20T10:00:00.000Z',
    completedAt: '2026-11-20T10:01:00.000Z',
    expiresAt: '2026-12-20T10:00:00.000Z',
    probability: 0.9526,
    category: 'likely_ai',
    images: [
      {
        input: { role: 'input', fileName: '생성.png', size: 2048, sha256: 'c'.repeat(64), thumbnailPng: null, replaced: false },
        probability: 0.9526,
        category: 'likely_ai',
        verdict: 'generated',
        noEvidence: false,
        statement: '1 finding(s) counted; the probability is the documented fusion of their weights.',
        evidence: [{ signal: 'sdWatermark', finding: 'sdWatermark.detected', description: 'Stable Diffusion invisible mark found: 130/136 bits.', direction: 'ai', weight: 3, details: {} }],
        heatmapNote: null,
        heatmapPng,
      },
      {
        input: { role: 'input', fileName: 'photo.jpg', size: 4096, sha256: 'd'.repeat(64), thumbnailPng: null, replaced: false },
        probability: 0.5,
        category: 'uncertain_ai',
        verdict: 'cannot_be_determined',
        noEvidence: true,
        statement: 'Cannot be determined: no provenance or generator evidence was found.',
        evidence: [],
        heatmapNote: 'Only file-level evidence: no heatmap is drawn.',
        heatmapPng: null,
      },
    ],
    issuer: 'Test issuer',
    generatedAt: new Date('2026-11-21T00:00:00.000Z'),
    reportReference: `RPT-5550001-${locale}-1`,
    ...overrides,
  };
}

async function text(input: AiDetectionReportData): Promise<{ content: string; images: number }> {
  const pdf = await renderPdf(await buildAiDetectionReportDocument(input));
  const images = (pdf.toString('latin1').match(/\/Subtype\s*\/Image/g) ?? []).length;
  return { content: (await pdfPageTexts(pdf)).join('\n').replace(/\s+/g, ' '), images };
}

/** Every string the document prints (its content, not its frame): what pdfmake lays out, character by character. */
function printed(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(printed);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (['text', 'stack', 'columns', 'table', 'body'].includes(key) ? printed(value) : []));
}

const printedText = async (input: AiDetectionReportData): Promise<string> => printed((await buildAiDetectionReportDocument(input)).document.content).join('');

/**
 * More than a file can put in its evidence: findings beyond what the signals give, a long description, and a chain of
 * 32 manifests of 20 actions each, every text at the reader's 500 characters (past the evidence's size limit), in
 * characters no font draws (DEL: one byte of JSON, printed as an 8-character code point) and Latin without a break.
 */
function hostileImage(image: AnalysedImage, index: number): AnalysedImage {
  const text = (tag: string, length = 500) => `${tag}${'\u007f'.repeat(length / 2)}${'A'.repeat(length / 2 - tag.length)}`;
  const step = (depth: number) => ({
    label: text('urn:c2pa:'), depth: Math.min(depth, 8), relationship: depth === 0 ? 'active' : text('parentOf'), title: text('t'), signer: text('s'), issuer: text('i'),
    signedAt: text('d'), signerTrusted: false, timeStampTrusted: null, claimGenerator: text('g'), actions: Array.from({ length: 20 }, () => text('c2pa.')), omittedActions: 180, digitalSourceType: text('http://cv.iptc.org/'),
  });
  const c2pa = { signal: 'c2pa' as const, finding: 'c2pa.ai', description: text('Content Credentials', 4_000), direction: 'ai' as const, weight: 0.5, details: { omittedManifests: 200 }, provenance: Array.from({ length: 32 }, (_, depth) => step(depth)) };
  const metadata = Array.from({ length: 40 }, () => ({ signal: 'metadata' as const, finding: 'metadata.generatorSoftware', description: text('Software'), direction: 'ai' as const, weight: 0.5, details: {} }));
  return { ...image, input: { ...image.input, fileName: `${index}.png` }, evidence: [c2pa, ...metadata] };
}

describe('AI detection report document', () => {
  afterAll(() => Promise.all([closePdfRenderer(), closeReportRenderer()]));

  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: assessment, each image with its localized evidence, limits and hashes', async (locale) => {
    const m = AI_DETECTION_REPORT_MESSAGES[locale];
    const { content, images } = await text(await data(locale));
    const squeeze = (value: string) => value.replace(/\s+/g, ' ');
    expect(content).toContain('5550001');
    expect(content).toContain(squeeze(m.result.verdicts.generated.label));
    expect(content).toContain(squeeze(m.result.categories.likely_ai.label));
    expect(content).toContain(squeeze(m.image.findings['sdWatermark.detected']));
    expect(content).toContain(squeeze(m.image.noEvidence));
    expect(content).toContain('Only file-level evidence');
    expect(content).toContain('c'.repeat(64));
    expect(content).toContain('d'.repeat(64));
    expect(content).toContain(new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(0.952));
    // The heatmap of the first image is in the PDF; the second has none.
    expect(images).toBe(1);
  });

  // Claims audit: the weights are set by rule (weights.ts), not fitted to measured error rates, and the signals are
  // not independent (one file writer's claims count once): the report says what its probability is.
  it.each([
    ['en-US', 'not a measured chance that the image is AI-generated', 'independent'],
    ['ko-KR', '측정된 가능성이 아닙니다', '독립'],
    ['ja-JP', '測定された確率ではありません', '独立'],
  ] as const)('%s: says the probability is fused weights set by rule, not a measured chance', async (locale, said, unsaid) => {
    const { content } = await text(await data(locale));
    const bare = (value: string): string => value.replace(/\s+/g, '');
    expect(bare(content)).toContain(bare(said));
    expect(content).not.toContain(unsaid);
  });

  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: a probability just under a band boundary prints under it, beside its category', async (locale) => {
    const base = await data(locale);
    const image: AnalysedImage = { ...base.images[0], probability: 0.74996, category: 'uncertain_ai', verdict: 'cannot_be_determined' };
    const { content } = await text({ ...base, probability: 0.74996, category: 'uncertain_ai', images: [image] });
    const shown = (value: number): string => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value).replace(/\s+/g, ' ');
    // the label wraps in its column: compared without white space
    const bare = (value: string): string => value.replace(/\s+/g, '');
    const label = bare(AI_DETECTION_REPORT_MESSAGES[locale].result.probability);
    expect(bare(content)).toContain(`${label}${bare(shown(0.749))}`);
    expect(bare(content)).not.toContain(`${label}${bare(shown(0.75))}`);
  });

  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: an order with no evidence is headed "cannot be determined", never a lean', async (locale) => {
    const m = AI_DETECTION_REPORT_MESSAGES[locale];
    const base = await data(locale);
    const { content } = await text({ ...base, probability: 0.5, category: 'uncertain_ai', images: [base.images[1]] });
    const squeeze = (value: string) => value.replace(/\s+/g, ' ');
    expect(content).toContain(squeeze(m.result.noEvidenceVerdict));
    expect(content).not.toContain(squeeze(m.result.verdicts.generated.meaning));
    expect(content).not.toMatch(/leaning|AI 쪽\)|AI 寄り）/);
  });

  // A manifest that fails validation weighs 0, so its image has no counted finding (noEvidence): the report headed it
  // "no provenance or generator evidence was found", printed "No signal found anything in this image" and hid the
  // finding, on the image where the file's own Content Credentials say it was altered after signing.
  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: an image whose manifest was found and not counted lists it, never "nothing found"', async (locale) => {
    const a = AI_DETECTION_REPORT_MESSAGES[locale];
    const base = await data(locale);
    const image: AnalysedImage = {
      ...base.images[1],
      statement: 'Cannot be determined: provenance or metadata was found, but none of it could be counted (c2pa.invalid); see the findings.',
      evidence: [{ signal: 'c2pa', finding: 'c2pa.invalid', description: 'A Content Credentials manifest is present but fails validation (assertion.dataHash.mismatch).', direction: 'neutral', weight: 0, details: {} }],
    };
    const shown = await printedText({ ...base, probability: 0.5, category: 'uncertain_ai', images: [image] });
    expect(shown).toContain(a.image.findings['c2pa.invalid']);
    expect(shown).toContain(a.result.verdicts.cannot_be_determined.label);
    expect(shown).not.toContain(a.image.noEvidence);
    expect(shown).not.toContain(a.result.noEvidenceVerdict);
    // An image with nothing found still says so plainly.
    expect(await printedText({ ...base, probability: 0.5, category: 'uncertain_ai', images: [base.images[1]] })).toContain(a.result.noEvidenceVerdict);
  });

  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: a Content Credentials finding prints its provenance chain, trusted or not', async (locale) => {
    const m = AI_DETECTION_REPORT_MESSAGES[locale];
    const base = await data(locale);
    const step = { title: null, issuer: 'Example CA', timeStampTrusted: null, digitalSourceType: null };
    const c2pa = {
      signal: 'c2pa' as const, finding: 'c2pa.ai', description: 'Content Credentials declare the source type "trainedAlgorithmicMedia".', direction: 'ai' as const, weight: 3, details: {},
      provenance: [
        { ...step, label: 'urn:c2pa:2', depth: 0, relationship: 'active', signer: 'Photo Editor signer', signedAt: null, signerTrusted: false, claimGenerator: 'Photo Editor 1', actions: ['c2pa.opened', 'c2pa.color_adjustments'] },
        { ...step, label: 'urn:c2pa:1', depth: 1, relationship: 'parentOf', signer: 'Second Generator signer', signedAt: '2026-11-20T09:00:00Z', signerTrusted: true, claimGenerator: 'Second Generator 1', actions: ['c2pa.created'], digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' },
      ],
    };
    const image = { ...base.images[0], evidence: [c2pa] };
    // break-all wraps anywhere: compare without white space
    const bare = (value: string) => value.replace(/\s+/g, '');
    const content = bare((await text({ ...base, images: [image] })).content);
    for (const expected of [m.image.provenance.heading, m.image.provenance.trusted, m.image.provenance.untrusted, 'Photo Editor signer', '2026-11-20T09:00:00Z']) {
      expect(content).toContain(bare(expected));
    }
  });

  it('an input replaced in storage after the analysis: its examined hash, and the note saying so', async () => {
    const base = await data('en-US');
    const [first, second] = base.images;
    const { content } = await text({ ...base, images: [{ ...first, input: { ...first.input, replaced: true } }, second] });
    expect(content).toContain('c'.repeat(64));
    expect(content.match(/The stored file was replaced after the examination/g)).toHaveLength(1);
  });

  it.each(['ko-KR', 'ja-JP'] as const)('%s: a file name no font fully draws is printed exactly, in its section and as a hash label', async (locale) => {
    const base = await data(locale);
    const image = { ...base.images[0], input: { ...base.images[0].input, fileName: '생성 🎉.png' } };
    const { content } = await text({ ...base, images: [image] });
    const bare = content.replace(/\s+/g, '');
    // once under the image, once labelling its SHA-256 (in the Korean font even in a Japanese report)
    expect(bare.split('생성[U+1F389].png').length - 1).toBe(2);
    expect(bare).toContain('생성[U+1F389].png—SHA-256');
    expect(content).not.toMatch(/[\u0000\ufffd\u{1f389}]/u);
  });

  it('prints a bounded share of the texts a file chose, however much evidence it carries', async () => {
    const base = await data('en-US');
    const ordinary = Array.from({ length: 20 }, (_, index) => ({ ...base.images[0], input: { ...base.images[0].input, fileName: `${index}.png` } }));
    const hostile = ordinary.map(hostileImage);
    const added = (await printedText({ ...base, images: hostile })).length - (await printedText({ ...base, images: ordinary })).length;
    // the file's texts within the report's limit, and per image at most about 2,000 characters of labels, separators
    // and the markers that say what was left out
    expect(added).toBeLessThanOrEqual(FILE_TEXT_LIMITS.report + 20 * 2_000);
    const rows = (await printedText({ ...base, images: hostile.slice(0, 1) })).match(/Declared metadata/g) ?? [];
    expect(rows).toHaveLength(FILE_TEXT_LIMITS.findings - 1);
  });

  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: each cut is marked with what it left out, and the report says where the whole evidence is', async (locale) => {
    const m = AI_DETECTION_REPORT_MESSAGES[locale];
    const base = await data(locale);
    const image = hostileImage(base.images[0], 0);
    const definition = await printedText({ ...base, images: [image] });
    // a marker with any count: the message of 987,654 with the number as a pattern
    const pattern = (marker: string) => new RegExp(marker.replace(/[()（）]/g, '\\$&').replace(/987.?654/, '\\d[\\d,.]*'));
    expect(definition).toMatch(pattern(m.image.omitted.characters(987_654)));
    expect(definition).toMatch(pattern(m.image.omitted.manifests(987_654)));
    expect(definition).toContain(m.image.omitted.findings(41 - FILE_TEXT_LIMITS.findings));
    // a Latin description: exactly its first characters, then how many more it has
    const latin = { ...image, evidence: [{ ...image.evidence[0], description: 'A'.repeat(1_000), provenance: [] }] };
    const cut = await printedText({ ...base, images: [latin] });
    expect(cut).toContain(`${'A'.repeat(FILE_TEXT_LIMITS.description)}${m.image.omitted.characters(1_000 - FILE_TEXT_LIMITS.description)}`);
    expect(cut).not.toContain('A'.repeat(FILE_TEXT_LIMITS.description + 1));
    const { content } = await text({ ...base, images: [image] });
    expect(content.replace(/\s+/g, '')).toContain(m.image.omitted.note.replace(/\s+/g, ''));
  });

  it('prints an ordinary chain whole, with no marker', async () => {
    const base = await data('en-US');
    const m = AI_DETECTION_REPORT_MESSAGES['en-US'];
    const step = { label: 'urn:c2pa:1', depth: 0, relationship: 'active', title: 'image.png', signer: 'Example Generator signer', issuer: 'Example CA', signedAt: '2026-11-20T09:00:00Z', signerTrusted: true, timeStampTrusted: true, claimGenerator: 'Example Generator 2.1', actions: ['c2pa.created', 'c2pa.color_adjustments', 'c2pa.cropped', 'c2pa.resized', 'c2pa.filtered', 'c2pa.drawing'], digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' };
    const description = `Content Credentials (signature valid, signer on the C2PA trust list) declare the source type "trainedAlgorithmicMedia", made by Example Generator 2.1. Provenance: ${'this file: Example Generator signer (trusted), by Example Generator 2.1; '.repeat(3)}`;
    const c2pa = { signal: 'c2pa' as const, finding: 'c2pa.ai', description, direction: 'ai' as const, weight: 3, details: {}, provenance: [step, { ...step, depth: 1, relationship: 'parentOf' }, { ...step, depth: 2, relationship: 'componentOf' }] };
    const definition = await printedText({ ...base, images: [{ ...base.images[0], evidence: [c2pa] }] });
    expect(definition).toContain(description);
    expect(definition.match(/c2pa\.created, c2pa\.color_adjustments, c2pa\.cropped, c2pa\.resized, c2pa\.filtered, c2pa\.drawing/g)).toHaveLength(3);
    expect(definition).not.toContain(m.image.omitted.note);
    expect(definition).not.toMatch(/more characters|not shown/);
  });

  it('a test order says that its result is simulated and not evidence', async () => {
    const { content } = await text(await data('en-US', { mode: 'test' }));
    expect(content).toContain('TEST ORDER');
  });
});
