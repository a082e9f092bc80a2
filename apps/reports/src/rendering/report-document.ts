import { ColluderTraceView, DetectionEvidenceView, DetectionStatus, KeyModeLike, ReportLocale } from '@cp/contracts';
import type { Content, ContentStack, ContentText, TableCell } from 'pdfmake/interfaces';
import { fontForText, fontsForText, localeFont } from './report-fonts';
import { codePointName, fontDraws, glyphRuns } from './report-glyphs';
import { COLORS, ReportDefinition, ReportTableLayout } from './report-layouts';
import { formatBytes, formatDate, REPORT_MESSAGES, ReportMessages } from './report-messages';

/** One input file as examined: hashed and previewed from storage, or not retained (test orders). */
export interface FileEvidence {
  role: 'original' | 'inspected' | 'input';
  fileName: string;
  size: number | null;
  sha256: string | null;
  thumbnailPng: Buffer | null;
  /** The stored object no longer holds the bytes examined (size and hash are the examined ones; no preview). */
  replaced: boolean;
}

/** What every report prints about its order and itself. */
export interface ReportOrderFields {
  locale: ReportLocale;
  orderId: string;
  orderName: string;
  mode: KeyModeLike;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string;
  issuer: string;
  generatedAt: Date;
  reportReference: string;
}

/** Everything printed in a watermark detection report. */
export interface ReportDocumentData extends ReportOrderFields {
  detectionStatus: DetectionStatus;
  /** Only present when the caller may see it (the orders service filters it). */
  watermarkText: string | null;
  confidence: number | null;
  method: string | null;
  /** What the detection rests on (check bits, coded bits, chance bound, transform); null when not recorded. */
  evidence: DetectionEvidenceView | null;
  original: FileEvidence;
  inspected: FileEvidence;
}

export { COLORS };

/** `abcd1234 ef56…`: hashes in groups of eight are easier to compare by eye. */
export function groupedHash(hash: string): string {
  return hash.match(/.{1,8}/g)?.join(' ') ?? hash;
}

/** Style of a character printed as its code point; the document's note explains it wherever one occurs. */
export const CODE_POINT_STYLE = 'codePoint';

/** `[U+1F389]`: how a character no embedded font can draw is printed. */
export function codePointNotation(codePoint: number): string {
  return `[${codePointName(codePoint)}]`;
}

const SUPPLEMENTARY = /([\u{10000}-\u{10ffff}])/u;

/**
 * The customer's text as inline pieces, each complete in itself (pdfmake drops a parent's style from nested
 * inlines): stretches in the font that draws them, and every character none draws as its code point, so the
 * report states the text exactly instead of showing empty boxes.
 */
export function userTextInlines(text: string, locale: ReportLocale, bold = false): ContentText[] {
  return glyphRuns(text, fontsForText(text, locale)).flatMap((run): ContentText[] => {
    if ('codePoint' in run) {
      return [{ text: codePointNotation(run.codePoint), font: fontForText(text, locale), bold, noWrap: true, style: CODE_POINT_STYLE }];
    }
    // break-all splits by UTF-16 unit, which would cut a surrogate pair into two empty boxes
    return run.text
      .split(SUPPLEMENTARY)
      .filter((part) => part !== '')
      .map((part): ContentText => (SUPPLEMENTARY.test(part) ? { text: part, font: run.font, bold, noWrap: true } : { text: part, font: run.font, wordBreak: 'break-all', bold }));
  });
}

export function userText(text: string, locale: ReportLocale, bold = false): ContentText {
  return joinedUserText(userTextInlines(text, locale, bold), text, locale, bold);
}

/** Inline pieces of the customer's `text` as one piece of content. */
export function joinedUserText(inlines: ContentText[], text: string, locale: ReportLocale, bold = false): ContentText {
  return inlines.length === 1 ? inlines[0] : { text: inlines, font: fontForText(text, locale), wordBreak: 'break-all', bold };
}

/** The start of a text that `cutUserText` keeps, with what it prints and what it leaves out. */
export interface CutUserText {
  kept: string;
  /** Characters printed for `kept`: a character no font draws counts as the length of its code point notation. */
  printed: number;
  /** Characters (code points) of the text left out. */
  omitted: number;
}

/**
 * The longest start of the customer's `text` that prints within `limit` characters, never half a surrogate pair.
 * A character no embedded font draws prints as its code point ("[U+007F]", 8 characters, each a piece pdfmake lays
 * out on its own), so it counts as that many: the limit bounds what pdfmake has to lay out, not the JSON.
 */
export function cutUserText(text: string, limit: number, locale: ReportLocale): CutUserText {
  const fonts = fontsForText(text, locale);
  let printed = 0;
  let end = 0;
  let omitted = 0;
  for (const character of text) {
    if (omitted > 0) {
      omitted++;
      continue;
    }
    const codePoint = character.codePointAt(0) ?? 0;
    const width = fonts.some((font) => fontDraws(font, codePoint)) ? 1 : codePointNotation(codePoint).length;
    if (printed + width > limit) {
      omitted = 1;
      continue;
    }
    printed += width;
    end += character.length;
  }
  return { kept: text.slice(0, end), printed, omitted };
}

/** A label is the report's own text, or inline pieces that include the customer's (a file name). */
export function keyValueTable(rows: Array<[string | ContentText[], Content]>): Content {
  return {
    table: {
      widths: [140, '*'],
      body: rows.map(([label, value]): TableCell[] => [{ text: label, style: 'label' }, value]),
    },
    layout: 'keyValue' satisfies ReportTableLayout,
    margin: [0, 0, 0, 6],
  };
}

export function sectionTitle(text: string): ContentStack {
  return {
    stack: [
      { text, style: 'section' },
      { canvas: [{ type: 'line', x1: 0, y1: 0, x2: 495, y2: 0, lineWidth: 1, lineColor: COLORS.accent }] },
    ],
    margin: [0, 16, 0, 6],
  };
}

function fileColumn(file: FileEvidence, heading: string, m: ReportMessages, locale: ReportLocale, notMatched = false): Content {
  const thumbnail: Content = file.thumbnailPng
    ? { image: `data:image/png;base64,${file.thumbnailPng.toString('base64')}`, fit: [225, 150], alignment: 'center' }
    : { text: m.files.noThumbnail, style: 'muted', alignment: 'center', margin: [0, 60, 0, 60] };
  const size = file.size === null ? m.notAvailable : m.files.bytes(formatBytes(file.size, locale));
  return {
    stack: [
      { text: heading, style: 'fileHeading' },
      { table: { widths: ['*'], heights: [160], body: [[{ stack: [thumbnail], fillColor: COLORS.band, margin: [0, 5, 0, 5] }]] }, layout: 'noBorders' },
      { text: m.files.fileName, style: 'label', margin: [0, 6, 0, 0] },
      userText(file.fileName, locale),
      { text: m.files.size, style: 'label', margin: [0, 4, 0, 0] },
      { text: size },
      { text: m.files.sha256, style: 'label', margin: [0, 4, 0, 0] },
      file.sha256 ? { text: groupedHash(file.sha256), style: 'hash' } : { text: m.files.notRetained, style: 'muted' },
      ...(file.replaced ? [{ text: m.files.replaced, style: 'muted', margin: [0, 4, 0, 0] } satisfies Content] : []),
      ...(notMatched ? [{ text: m.files.notMatched, bold: true, margin: [0, 4, 0, 0] } satisfies Content] : []),
    ],
  };
}

function confidenceText(confidence: number | null, status: DetectionStatus, m: ReportMessages, locale: ReportLocale): string {
  // not_detected: no candidate was decoded, so no agreement was measured (the engine records 0 for every one of them)
  if (confidence === null || status === 'not_detected' || status === 'unsupported' || status === 'error') {
    return m.result.confidenceNotApplicable;
  }
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(Math.min(1, Math.max(0, confidence)));
}

/** The evidence rows: what was measured and the design bound, each stated in the report's language. */
function evidenceRows(e: DetectionEvidenceView, method: string | null, m: ReportMessages, locale: ReportLocale): Array<[string, Content]> {
  const int = new Intl.NumberFormat(locale);
  const pct = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
  // a bound: "1 in N" rounds N down (toward the larger chance), never to a smaller chance than the design gives
  const oneIn = new Intl.NumberFormat(locale, { maximumSignificantDigits: 2, roundingMode: 'floor' }).format(e.chanceBound > 0 ? 1 / e.chanceBound : Number.MAX_SAFE_INTEGER);
  const rows: Array<[string, Content]> = [
    [m.evidence.checkBits, { text: m.evidence.checkBitsValue(e.checkBitsMatched, e.checkBits, e.payloadBits) }],
    [m.evidence.codedBits, { text: m.evidence.codedBitsValue(int.format(e.codedBitsAgreeing), int.format(e.codedBits), int.format(e.codedBits - e.codedBitsAgreeing)) }],
    [m.evidence.margin, { text: m.evidence.marginValue(pct.format(e.softAgreement), pct.format(e.threshold)) }],
    [m.evidence.chance, { text: m.evidence.chanceValue(oneIn, e.decodingAttempts, e.checkBits) }],
  ];
  const t = e.transform;
  let transform: string;
  if (!t) transform = method === 'registered' ? m.evidence.transformNone : m.evidence.transformBlind;
  else {
    const deg = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
    // the engine counts counter-clockwise; a negative angle reads better as a clockwise turn
    const rotation = Math.abs(t.rotationDeg) >= 0.5 ? m.evidence.turn(`${deg.format(Math.abs(t.rotationDeg))}°`, t.rotationDeg < 0) : null;
    const scale = Math.abs(t.scale - 1) >= 0.01 ? pct.format(t.scale) : null;
    const visible = t.originalAreaVisible < 0.99 ? new Intl.NumberFormat(locale, { style: 'percent' }).format(t.originalAreaVisible) : null;
    transform =
      !rotation && !scale && !t.mirrored && !visible && !t.perspective
        ? m.evidence.transformNone
        : m.evidence.transformValue({ rotation, scale, mirrored: t.mirrored, visible, perspective: t.perspective });
  }
  rows.push([m.evidence.transform, { text: transform }]);
  if (e.page !== undefined) rows.push([m.evidence.page, { text: int.format(e.page) }]);
  return rows;
}

/** Issue 36: every recipient candidate tracing accused, with the score, the bound, the candidates and the mixing. */
function colluderSection(c: ColluderTraceView, m: ReportMessages, locale: ReportLocale): Content[] {
  const int = new Intl.NumberFormat(locale);
  const z = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  // "named only when ... a score of at least T": T rounded down, so the printed bar is never higher than the real one
  const zFloor = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1, roundingMode: 'floor' });
  // beyond a trillion, "1 in 3.2 × 10^27" (the digits would not fit a table cell); rounded down, as a bound must be
  const oneIn = (p: number): string => {
    const n = p > 0 ? 1 / p : Number.MAX_VALUE;
    if (n < 1e12) return new Intl.NumberFormat(locale, { maximumSignificantDigits: 2, roundingMode: 'floor' }).format(n);
    const exp = Math.floor(Math.log10(n));
    return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1, roundingMode: 'floor' }).format(n / 10 ** exp)} × 10^${exp}`;
  };
  const pct = new Intl.NumberFormat(locale, { style: 'percent' });
  const header = [m.colluders.recipient, m.colluders.order, m.colluders.score, m.colluders.bound, m.colluders.regions].map((text): TableCell => ({ text, style: 'label' }));
  const rows = c.accused.map((a): TableCell[] => [
    userText(a.watermarkText, locale, true),
    { text: a.orderId },
    { text: z.format(a.z) },
    { text: m.colluders.boundValue(oneIn(a.bound)) },
    { text: a.regionShare === null ? m.notAvailable : pct.format(a.regionShare) },
  ]);
  // the section stays on one page (at most eight accused)
  return [
    {
      unbreakable: true,
      stack: [
        sectionTitle(m.colluders.title),
        { text: m.colluders.intro(int.format(c.candidatesTested), c.accused.length), margin: [0, 0, 0, 6] },
        keyValueTable([
          [m.colluders.candidatesTested, { text: int.format(c.candidatesTested) }],
          [m.colluders.mixing, { text: m.colluders.mixingValues[c.mixing ?? 'single'] }],
        ]),
        {
          table: { headerRows: 1, widths: ['*', 70, 50, 95, 60], body: [header, ...rows] },
          layout: 'ruled' satisfies ReportTableLayout,
          margin: [0, 0, 0, 6],
        },
        { text: m.colluders.method(oneIn(c.level), zFloor.format(c.threshold)), style: 'muted' },
      ],
    },
  ];
}

/**
 * Outside review: the report lists the original as the reference even when the detection used no alignment with it
 * (method `blind`: no registration was found, or none gave the result), and a reader could take the inspected file
 * for a copy of it. That is said plainly; only what the method records, no claim either way about where the file
 * comes from. Null when an alignment was used, or nothing was read (unsupported, error).
 */
function originalNotMatchedText(status: DetectionStatus, method: string | null, m: ReportMessages): string | null {
  if (method !== 'blind') return null;
  if (status === 'detected' || status === 'inconclusive') return m.result.notMatchedMarkRead;
  // not detected and blind: the extractor had no registration at all (a registration tried reports `registered`)
  if (status === 'not_detected') return m.result.notMatchedNoAlignment;
  return null;
}

function methodText(method: string | null, m: ReportMessages): string {
  if (method === null) {
    return m.notAvailable;
  }
  return m.result.methods[method] ?? m.result.unknownMethod(method);
}

/** The opening every report shares: title, subtitle, the test-order warning, and section 1 (the order). */
export function reportOpening(data: ReportOrderFields, heading: { title: string; subtitle: string; orderType: string }): Content[] {
  const m = REPORT_MESSAGES[data.locale];
  const date = (value: string | Date | null): string => formatDate(value, data.locale) ?? m.notAvailable;
  const content: Content[] = [
    { text: heading.title, style: 'title' },
    { text: heading.subtitle, style: 'subtitle' },
    { canvas: [{ type: 'line', x1: 0, y1: 0, x2: 495, y2: 0, lineWidth: 2, lineColor: COLORS.accent }], margin: [0, 6, 0, 0] },
  ];
  if (data.mode === 'test') {
    content.push({
      table: { widths: ['*'], body: [[{ text: m.testOrderNotice, color: COLORS.warn, bold: true, margin: [6, 6, 6, 6] }]] },
      layout: 'warning' satisfies ReportTableLayout,
      margin: [0, 10, 0, 0],
    });
  }
  content.push(
    sectionTitle(m.sections.order),
    keyValueTable([
      [m.order.orderId, { text: data.orderId, bold: true }],
      [m.order.orderName, userText(data.orderName, data.locale)],
      [m.order.orderType, { text: heading.orderType }],
      [m.order.createdAt, { text: date(data.createdAt) }],
      [m.order.completedAt, { text: date(data.completedAt) }],
      [m.order.retainedUntil, { text: date(data.expiresAt) }],
      [m.order.reportGeneratedAt, { text: date(data.generatedAt) }],
      [m.order.reportId, { text: data.reportReference }],
    ]),
  );
  return content;
}

/**
 * The last section of every report: how to check the files against it, the issuer, and each file's SHA-256.
 * A hash's label is the report's own text or, as inline pieces, a file name.
 */
export function verificationSection(data: ReportOrderFields, title: string, hashes: Array<[string | ContentText[], string | null]>): Content[] {
  const m = REPORT_MESSAGES[data.locale];
  return [
    {
      // The title stays with the text under it.
      unbreakable: true,
      stack: [sectionTitle(title), { text: m.verification.intro, margin: [0, 0, 0, 6] }, { text: m.verification.howTo, margin: [0, 0, 0, 6] }],
    },
    keyValueTable([
      [m.verification.issuer, { text: data.issuer }],
      [m.order.orderId, { text: data.orderId }],
      [m.order.reportId, { text: data.reportReference }],
      [m.verification.algorithm, { text: m.verification.algorithmValue }],
      ...hashes.map(([label, sha256]): [string | ContentText[], Content] => [
        typeof label === 'string' ? `${label} — ${m.files.sha256}` : [...label, { text: ` — ${m.files.sha256}` }],
        sha256 ? { text: sha256, style: 'hashFull' } : { text: m.files.notRetained, style: 'muted' },
      ]),
    ]),
    { text: m.verification.integrity, style: 'muted' },
  ];
}

/**
 * The watermark text row when there is no text to print. "Not disclosed" is only true of a detection (a watermark was
 * identified, its text is for the issuing account): said of any other status it would tell a legal reader that a
 * text exists and is kept from them, when no watermark was identified at all (outside review).
 */
function missingWatermarkText(status: DetectionStatus, several: boolean, m: ReportMessages): string {
  if (several) return m.colluders.severalText;
  return status === 'detected' ? m.result.watermarkTextWithheld : m.result.watermarkTextNone;
}

/** The pdfmake definition of a report: A4, four numbered sections, page footer with the order id. */
export function buildReportDocument(data: ReportDocumentData): ReportDefinition {
  const m = REPORT_MESSAGES[data.locale];
  const locale = data.locale;
  const status = m.result.statuses[data.detectionStatus];
  const colluders = data.evidence?.colluders && data.evidence.colluders.accused.length > 0 ? data.evidence.colluders : null;
  const several = colluders !== null && colluders.accused.length >= 2;
  const watermark: Content = data.watermarkText !== null ? userText(data.watermarkText, locale, true) : { text: missingWatermarkText(data.detectionStatus, several, m), style: 'muted' };
  const showEvidence = data.evidence && (data.detectionStatus === 'detected' || data.detectionStatus === 'inconclusive');
  // a copy traced to several recipients may carry no decodable identifier: the decoding rows would describe nothing
  const decoded = data.evidence !== null && data.evidence.checkBitsMatched === data.evidence.checkBits;
  const notMatched = originalNotMatchedText(data.detectionStatus, data.method, m);
  const limits = m.result.limitsValues[data.detectionStatus];

  const content = reportOpening(data, { title: m.title, subtitle: m.subtitle, orderType: m.order.orderTypeValue });
  content.push(
    sectionTitle(m.sections.result),
    keyValueTable([
      [m.result.detectionStatus, { text: status.label, bold: true, color: data.detectionStatus === 'detected' ? COLORS.accent : COLORS.ink }],
      [m.result.meaning, { text: status.meaning }],
      [m.result.watermarkText, watermark],
      [m.result.confidence, { text: confidenceText(data.confidence, data.detectionStatus, m, locale) }],
      [m.result.method, { text: methodText(data.method, m) }],
      ...(notMatched ? [[m.result.originalMatch, { text: notMatched, bold: true }] as [string, Content]] : []),
      ...(showEvidence && data.evidence && (decoded || !colluders) ? evidenceRows(data.evidence, data.method, m, locale) : []),
      ...(showEvidence && colluders && !decoded ? [[m.evidence.checkBits, { text: several ? m.colluders.notDecoded : m.colluders.notDecodedOne }] as [string, Content]] : []),
      ...(limits ? [[m.result.limits, { text: limits }] as [string, Content]] : []),
    ]),
    ...(showEvidence && colluders ? colluderSection(colluders, m, locale) : []),
    {
      // Thumbnails and hashes of one file stay together on a page.
      unbreakable: true,
      stack: [
        sectionTitle(m.sections.files),
        {
          columns: [fileColumn(data.original, m.files.original, m, locale, notMatched !== null), fileColumn(data.inspected, m.files.inspected, m, locale)],
          columnGap: 25,
        },
      ],
    },
    ...verificationSection(data, m.sections.verification, [
      [m.files.original, data.original.sha256],
      [m.files.inspected, data.inspected.sha256],
    ]),
  );

  return reportFrame({ locale, title: m.title, orderId: data.orderId, issuer: data.issuer, generatedAt: data.generatedAt, reportReference: data.reportReference, orderIdLabel: m.order.orderId, page: m.page }, content);
}

/** What every report shares around its content: A4, document info, fonts and styles, the footer with the order id. */
export interface ReportFrame {
  locale: ReportLocale;
  title: string;
  orderId: string;
  issuer: string;
  generatedAt: Date;
  reportReference: string;
  orderIdLabel: string;
  /** The page number's template (`{current}`, `{total}`). */
  page: string;
}

/** Whether any node of `content` prints a character as its code point. */
function printsCodePoints(content: unknown): boolean {
  if (Array.isArray(content)) return content.some(printsCodePoints);
  if (typeof content !== 'object' || content === null) return false;
  return Object.entries(content).some(([key, value]) => (key === 'style' ? value === CODE_POINT_STYLE : printsCodePoints(value)));
}

export function reportFrame(frame: ReportFrame, content: Content[]): ReportDefinition {
  // A reader meeting "[U+1F389]" in a name must know it stands for one character, not the text typed.
  const note: Content[] = printsCodePoints(content) ? [{ text: REPORT_MESSAGES[frame.locale].codePointNote, style: 'muted', margin: [0, 6, 0, 0] }] : [];
  const document: ReportDefinition['document'] = {
    pageSize: 'A4',
    language: frame.locale,
    pageMargins: [50, 50, 50, 60],
    info: {
      title: `${frame.title} — ${frame.orderId}`,
      author: frame.issuer,
      subject: `${frame.title} (${frame.locale})`,
      keywords: `order ${frame.orderId}; ${frame.reportReference}`,
      creator: frame.issuer,
      producer: frame.issuer,
      creationDate: frame.generatedAt,
    },
    defaultStyle: { font: localeFont(frame.locale), fontSize: 9.5, lineHeight: 1.25, color: COLORS.ink },
    styles: {
      title: { fontSize: 20, bold: true, color: COLORS.accent },
      subtitle: { fontSize: 10, color: COLORS.muted, margin: [0, 2, 0, 0] },
      section: { fontSize: 13, bold: true, color: COLORS.accent, margin: [0, 0, 0, 3] },
      label: { color: COLORS.muted, fontSize: 8.5 },
      fileHeading: { bold: true, fontSize: 10.5, margin: [0, 0, 0, 4] },
      hash: { fontSize: 8, characterSpacing: 0.2 },
      hashFull: { fontSize: 7.5, wordBreak: 'break-all' },
      muted: { color: COLORS.muted },
      [CODE_POINT_STYLE]: { color: COLORS.accent },
    },
    content: [...content, ...note],
  };
  return {
    document,
    // under the content, within the page margins: the order id and reference left, the page number right
    footer: { text: `${frame.orderIdLabel} ${frame.orderId} · ${frame.reportReference}`, pageTemplate: frame.page, style: 'muted', fontSize: 7.5, margin: [50, 20, 50, 0] },
  };
}
