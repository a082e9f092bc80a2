// The AI detection report in its three languages, rendered to PDF and read back as text: the assessment, every
// image with its evidence (localized findings), the heatmap when there is one, the limits, and the hashes.
import { ReportLocale } from '@cp/contracts';
import { closePdfRenderer, pdfPageTexts } from '@cp/watermark-pdf';
import sharp from 'sharp';
import { AI_DETECTION_REPORT_MESSAGES } from './ai-detection-report-messages';
import { AiDetectionReportData, buildAiDetectionReportDocument } from './ai-detection-report-document';
import { renderPdf } from './pdf-renderer';

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
  const pdf = await renderPdf(buildAiDetectionReportDocument(input));
  const images = (pdf.toString('latin1').match(/\/Subtype\s*\/Image/g) ?? []).length;
  return { content: (await pdfPageTexts(pdf)).join('\n').replace(/\s+/g, ' '), images };
}

describe('AI detection report document', () => {
  afterAll(() => closePdfRenderer());

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
    expect(content).toContain(new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(0.9526));
    // The heatmap of the first image is in the PDF; the second has none.
    expect(images).toBe(1);
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

  it('a test order says that its result is simulated and not evidence', async () => {
    const { content } = await text(await data('en-US', { mode: 'test' }));
    expect(content).toContain('TEST ORDER');
  });
});
