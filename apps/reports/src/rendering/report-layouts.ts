import type { TDocumentDefinitions } from 'pdfmake/interfaces';

/**
 * The table layouts and the footer of a report as data: a report is rendered in another process (pdf-render-worker.mjs),
 * and pdfmake's layouts and footer are functions, which do not cross a process boundary. The worker turns this data
 * into those functions; the builders name a layout (`layout: 'keyValue'`) instead of carrying one.
 */
export interface TableLayoutData {
  /** Width of the horizontal rules between rows (and of the top and bottom ones, unless `outerHLineWidth`). */
  hLineWidth?: number;
  /** Width of the table's top and bottom rules. */
  outerHLineWidth?: number;
  vLineWidth?: number;
  hLineColor?: string;
  vLineColor?: string;
  paddingTop?: number;
  paddingBottom?: number;
  paddingLeft?: number;
  paddingRight?: number;
}

/** Colours of the reports (here rather than in report-document.ts: the layouts below use them). */
export const COLORS = { ink: '#1a1a1a', muted: '#5c6370', rule: '#c8ccd2', band: '#f2f4f7', accent: '#1f4e8c', warn: '#a4161a' };

/** The reports' own table layouts by name (pdfmake's built-in ones, such as `noBorders`, remain available). */
export const REPORT_TABLE_LAYOUTS = {
  /** Label and value rows: a thin rule between rows, none above or below. */
  keyValue: { hLineWidth: 0.5, outerHLineWidth: 0, vLineWidth: 0, hLineColor: COLORS.rule, paddingTop: 5, paddingBottom: 5, paddingLeft: 0 },
  /** A list with a header row: thin rules, no vertical ones. */
  ruled: { hLineWidth: 0.5, vLineWidth: 0, hLineColor: COLORS.rule, paddingTop: 4, paddingBottom: 4 },
  /** The test-order notice: a box in the warning colour. */
  warning: { hLineColor: COLORS.warn, vLineColor: COLORS.warn },
} as const satisfies Record<string, TableLayoutData>;

export type ReportTableLayout = keyof typeof REPORT_TABLE_LAYOUTS;

/** The footer of every page: two columns, the second with the page number from `pageTemplate`. */
export interface ReportFooterData {
  /** Printed as is, on the left. */
  text: string;
  /** Printed on the right, `{current}` and `{total}` replaced by the page number and the page count. */
  pageTemplate: string;
  /** Style of both columns (a style of the document). */
  style: string;
  fontSize: number;
  /** Left, top, right, bottom. */
  margin: [number, number, number, number];
}

/** A report as the renderer takes it: a pdfmake definition without functions, and its footer as data. */
export interface ReportDefinition {
  document: Omit<TDocumentDefinitions, 'footer' | 'header' | 'background' | 'pageBreakBefore'>;
  footer: ReportFooterData | null;
}
