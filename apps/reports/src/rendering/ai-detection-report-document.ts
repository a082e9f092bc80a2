import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { AiDetectionAnalysis, AiDetectionCategory, AiDetectionEvidence, aiDetectionVerdictOf, ReportLocale } from '@cp/contracts';
import type { Content, ContentText, TableCell } from 'pdfmake/interfaces';
import { AI_DETECTION_REPORT_MESSAGES, AiDetectionReportMessages } from './ai-detection-report-messages';
import { FILE_TEXT_LIMITS, FileTextBudget } from './file-text-budget';
import { ReportDefinition, ReportTableLayout } from './report-layouts';
import { COLORS, FileEvidence, groupedHash, keyValueTable, reportFrame, reportOpening, ReportOrderFields, sectionTitle, userText, userTextInlines, verificationSection } from './report-document';
import { formatBytes, REPORT_MESSAGES, ReportMessages } from './report-messages';

/** One analysed image as printed: the input (hashed, previewed), its analysis and its heatmap as PNG. */
export interface AnalysedImage extends AiDetectionAnalysis {
  input: FileEvidence;
  heatmapPng: Buffer | null;
}

/** Everything printed in an AI detection report. */
export interface AiDetectionReportData extends ReportOrderFields {
  probability: number;
  category: AiDetectionCategory;
  images: AnalysedImage[];
}

/**
 * Something was found in the file even though nothing was counted: a Content Credentials or metadata finding of
 * weight 0 (a manifest that fails validation, is unreadable or declares no source type; metadata left unread), as
 * the detector's statement says (libs/ai-detection/src/fusion.ts). `noEvidence` means nothing counted, not nothing found.
 */
const foundUncounted = (analysis: { evidence?: readonly AiDetectionEvidence[] }): boolean =>
  (analysis.evidence ?? []).some((e) => e.signal === 'c2pa' || e.signal === 'metadata');

/** The verdict as a person reads it: a file with nothing to read says so plainly (and only such a file). */
function verdictText(analysis: Pick<AiDetectionAnalysis, 'verdict' | 'category' | 'noEvidence'> & { evidence?: readonly AiDetectionEvidence[] }, a: AiDetectionReportMessages): { label: string; meaning: string } {
  const verdict = a.result.verdicts[aiDetectionVerdictOf(analysis)];
  return analysis.noEvidence && !foundUncounted(analysis) ? { label: a.result.noEvidenceVerdict, meaning: verdict.meaning } : verdict;
}

const decided = (analysis: Pick<AiDetectionAnalysis, 'verdict' | 'category' | 'noEvidence'>): boolean => aiDetectionVerdictOf(analysis) !== 'cannot_be_determined';

// Cut, not rounded: the categories' bands include their lower bound (fusion.ts), so 74.96 % (possibly AI) must not
// print as 75 %, the first value of "likely AI" shown beside it.
const percent = (value: number, locale: ReportLocale): string => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1, roundingMode: 'trunc' }).format(value);

function picture(png: Buffer | null, fallback: string): Content {
  return png
    ? { image: `data:image/png;base64,${png.toString('base64')}`, fit: [225, 150], alignment: 'center' }
    : { text: fallback, style: 'muted', alignment: 'center', margin: [0, 60, 0, 60] };
}

function framed(heading: string, content: Content): Content {
  return {
    stack: [
      { text: heading, style: 'label', margin: [0, 0, 0, 3] },
      { table: { widths: ['*'], heights: [160], body: [[{ stack: [content], fillColor: COLORS.band, margin: [0, 5, 0, 5] }]] }, layout: 'noBorders' },
    ],
  };
}

/** `a, b, c`: inline pieces with a separator between them. */
function joined(parts: ContentText[][], separator: string): ContentText[] {
  return parts.flatMap((part, index) => (index === 0 ? part : [{ text: separator }, ...part]));
}

/**
 * The chain under a C2PA finding: one line per manifest, the file's own first. Every text but the report's labels is
 * the file's (signer names, generator, actions), printed within the file's text budget: manifests past
 * FILE_TEXT_LIMITS.manifests, or past the budget, are counted in one line, with those the detector did not list.
 */
function provenanceLines(item: AiDetectionEvidence, steps: NonNullable<AiDetectionEvidence['provenance']>, a: AiDetectionReportMessages, budget: FileTextBudget): Content[] {
  const p = a.image.provenance;
  const field = FILE_TEXT_LIMITS.field;
  const labelled = (label: string, value: string): ContentText[] => [{ text: `${label} ` }, ...budget.inlines(value, field)];
  const lines: Content[] = [];
  for (const step of steps.slice(0, FILE_TEXT_LIMITS.manifests)) {
    if (budget.spent) break;
    const trust = ` (${step.signerTrusted ? p.trusted : p.untrusted})`;
    const who: ContentText[] = [
      { text: '  '.repeat(step.depth) },
      ...(step.relationship === 'active' ? [{ text: p.thisFile }] : budget.inlines(step.relationship, field)),
      { text: ': ' },
      ...(step.signer ? budget.inlines(step.signer, field) : [{ text: '—' }]),
      { text: trust },
    ];
    const actions: ContentText[][] = [];
    for (const action of step.actions.slice(0, FILE_TEXT_LIMITS.actions)) {
      if (budget.spent) break;
      actions.push(budget.inlines(action, field));
    }
    // `+N`: actions not listed here (the budget's, the reader's or the size limit's), said in any language
    const unlisted = step.actions.length - actions.length + (step.omittedActions ?? 0);
    if (actions.length < step.actions.length) budget.markCut();
    const facts: ContentText[][] = [
      who,
      ...(step.signedAt ? [labelled(p.timeStamped, step.signedAt)] : []),
      ...(step.claimGenerator ? [labelled(p.generator, step.claimGenerator)] : []),
      ...(step.actions.length ? [[{ text: `${p.actions} ` }, ...joined(actions, ', '), ...(unlisted ? [{ text: `${actions.length ? ', ' : ''}… (+${unlisted})` }] : [])]] : []),
      ...(step.digitalSourceType ? [labelled(p.source, step.digitalSourceType.slice(step.digitalSourceType.lastIndexOf('/') + 1))] : []),
    ];
    lines.push({ text: joined(facts, ' · '), fontSize: 7.5 });
  }
  const unlistedByDetector = typeof item.details.omittedManifests === 'number' ? item.details.omittedManifests : 0;
  const notShown = steps.length - lines.length + unlistedByDetector;
  if (steps.length > lines.length) budget.markCut();
  return [
    { text: p.heading, style: 'label', margin: [0, 3, 0, 1] },
    ...lines,
    ...(notShown > 0 ? [{ text: a.image.omitted.manifests(notShown), style: 'muted', fontSize: 7.5 } satisfies Content] : []),
  ];
}

function evidenceTable(evidence: AiDetectionEvidence[], a: AiDetectionReportMessages, locale: ReportLocale, budget: FileTextBudget): Content {
  const weight = new Intl.NumberFormat(locale, { maximumFractionDigits: 2, signDisplay: 'exceptZero' });
  const header: TableCell[] = [a.image.signal, a.image.finding, a.image.direction, a.image.weight].map((text) => ({ text, style: 'label' }));
  const shown = evidence.slice(0, FILE_TEXT_LIMITS.findings);
  const notShown = evidence.length - shown.length;
  if (notShown > 0) budget.markCut();
  return {
    table: {
      headerRows: 1,
      widths: [110, '*', 60, 55],
      body: [
        header,
        ...shown.map((item): TableCell[] => [
          { text: a.image.signals[item.signal] },
          {
            stack: [
              { text: a.image.findings[item.finding] ?? item.finding },
              budget.text(item.description, FILE_TEXT_LIMITS.description),
              ...(item.provenance?.length ? provenanceLines(item, item.provenance, a, budget) : []),
            ],
          },
          { text: a.image.directions[item.direction], color: item.direction === 'ai' ? COLORS.warn : COLORS.ink },
          { text: weight.format(item.weight), alignment: 'right' },
        ]),
        ...(notShown > 0 ? [[{ text: a.image.omitted.findings(notShown), style: 'muted', colSpan: 4 }, {}, {}, {}] satisfies TableCell[]] : []),
      ],
    },
    layout: 'ruled' satisfies ReportTableLayout,
    fontSize: 8.5,
    margin: [0, 0, 0, 6],
  };
}

/** `title`: the section's title, kept on the page of its first image. */
function imageSection(image: AnalysedImage, position: number, total: number, a: AiDetectionReportMessages, m: ReportMessages, locale: ReportLocale, budget: FileTextBudget, title?: Content): Content[] {
  budget.startImage();
  const size = image.input.size === null ? m.notAvailable : m.files.bytes(formatBytes(image.input.size, locale));
  return [
    {
      unbreakable: true,
      stack: [
        ...(title ? [title] : []),
        { text: a.image.heading(position, total), style: 'fileHeading', margin: [0, 10, 0, 4] },
        {
          columns: [framed(a.image.input, picture(image.input.thumbnailPng, m.files.noThumbnail)), framed(a.image.heatmap, picture(image.heatmapPng, image.heatmapNote ?? a.image.noHeatmap))],
          columnGap: 25,
        },
      ],
    },
    keyValueTable([
      [m.files.fileName, userText(image.input.fileName, locale)],
      [m.files.size, { text: size }],
      [
        m.files.sha256,
        {
          stack: [
            image.input.sha256 ? { text: groupedHash(image.input.sha256), style: 'hash' } : { text: m.files.notRetained, style: 'muted' },
            ...(image.input.replaced ? [{ text: m.files.replaced, style: 'muted', margin: [0, 2, 0, 0] } satisfies Content] : []),
          ],
        },
      ],
      [a.result.verdict, { text: verdictText(image, a).label, bold: true }],
      [a.result.probability, { text: percent(image.probability, locale) }],
      [a.result.category, { text: a.result.categories[image.category].label }],
      [a.image.statement, userText(image.statement, locale)],
    ]),
    { text: a.image.evidence, style: 'label', margin: [0, 2, 0, 3] },
    image.evidence.length > 0 && (!image.noEvidence || foundUncounted(image)) ? evidenceTable(image.evidence, a, locale, budget) : { text: a.image.noEvidence, margin: [0, 0, 0, 6] },
    // A filed report says what it left out, and where the rest is.
    ...(budget.cut ? [{ text: a.image.omitted.note, style: 'muted', fontSize: 7.5, margin: [0, 0, 0, 6] } satisfies Content] : []),
  ];
}

/** The pdfmake definition of an AI detection report: order, assessment, every image with its evidence, method and limits, verification. */
export async function buildAiDetectionReportDocument(data: AiDetectionReportData): Promise<ReportDefinition> {
  const m = REPORT_MESSAGES[data.locale];
  const a = AI_DETECTION_REPORT_MESSAGES[data.locale];
  const locale = data.locale;
  // The headline image is the order's most AI-looking one (highest probability), as in every other surface.
  const top = data.images.reduce<AnalysedImage | null>((best, image) => (!best || image.probability > best.probability ? image : best), null);
  const headline = top ?? { verdict: 'cannot_be_determined' as const, category: data.category, noEvidence: true };
  const verdict = verdictText(headline, a);

  const budget = new FileTextBudget(locale, a.image.omitted.characters);
  const sections: Content[] = [];
  for (const [index, image] of data.images.entries()) {
    // One image's section at a time, the event loop let go between them: the reports service answers its RPCs and
    // health checks meanwhile (20 images of the largest evidence took 50-90 ms to build in one stretch).
    if (index > 0) await yieldToEventLoop();
    sections.push(...imageSection(image, index + 1, data.images.length, a, m, locale, budget, index === 0 ? sectionTitle(a.sections.images) : undefined));
  }
  const content = reportOpening(data, { title: a.title, subtitle: a.subtitle, orderType: a.orderTypeValue });
  content.push(
    sectionTitle(a.sections.result),
    keyValueTable([
      [a.result.verdict, { text: verdict.label, bold: true, color: decided(headline) && data.category === 'likely_ai' ? COLORS.warn : COLORS.ink }],
      [a.result.meaning, { text: verdict.meaning }],
      [a.result.probability, { text: percent(data.probability, locale) }],
      [a.result.category, { text: a.result.categories[data.category].label }],
      [a.result.imageCount, { text: new Intl.NumberFormat(locale).format(data.images.length) }],
    ]),
    { text: a.result.headlineNote, style: 'muted', margin: [0, 0, 0, 4] },
    ...sections,
    // Each title stays with the text under it.
    { unbreakable: true, stack: [sectionTitle(a.sections.method), ...a.method.map((paragraph): Content => ({ text: paragraph, margin: [0, 0, 0, 6] }))] },
    ...verificationSection(
      data,
      m.sections.verification.replace(/^\d+/, '5'),
      data.images.map((image): [ContentText[], string | null] => [userTextInlines(image.input.fileName, locale), image.input.sha256]),
    ),
  );
  return reportFrame(
    { locale, title: a.title, orderId: data.orderId, issuer: data.issuer, generatedAt: data.generatedAt, reportReference: data.reportReference, orderIdLabel: m.order.orderId, page: m.page },
    content,
  );
}
