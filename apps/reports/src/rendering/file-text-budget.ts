import { ReportLocale } from '@cp/contracts';
import type { ContentText } from 'pdfmake/interfaces';
import { localeFont } from './report-fonts';
import { cutUserText, joinedUserText, userTextInlines } from './report-document';

/**
 * How much of the texts a file chose an AI detection report prints (docs/api-decisions.md, "What an AI detection
 * report prints of the texts a file chose"), in printed characters: a character no embedded font draws counts as its
 * code point notation ([U+007F]: 8), since pdfmake lays each out as a piece of its own. Without them a report of 20
 * images whose manifests filled the evidence's size limit held the service's event loop 4 to 11 s and ran to 1,100
 * pages (tools/bench-reports).
 * - `field`: one text of a manifest (signer, time stamp, generator, an action, source type, relationship);
 * - `description`: the detector's sentence about one finding (it repeats the chain's texts);
 * - `image`, `report`: all of them together, for one image and for the whole report (an order has at most 20 images,
 *   so `report` only matters should that change);
 * - `manifests`, `actions`, `findings`: lines of one provenance chain, actions listed on one line (the C2PA reader's
 *   own limit), rows of one image's evidence table; with these the labels, separators and markers around the texts
 *   stay within about 2,000 characters an image too.
 * Each cut is said where it happens; the API's JSON keeps the whole evidence.
 */
export const FILE_TEXT_LIMITS = { field: 200, description: 600, image: 2_500, report: 50_000, manifests: 10, actions: 20, findings: 12 } as const;

/**
 * What is left to print of the file's texts, for the image being printed and for the report: each text takes what it
 * prints from both, and once one is spent the texts that follow print only their marker. Records whether the current
 * image lost anything, so the report can say where the whole evidence is.
 */
export class FileTextBudget {
  private reportLeft: number = FILE_TEXT_LIMITS.report;
  private imageLeft = 0;
  private imageCut = false;

  constructor(
    private readonly locale: ReportLocale,
    /** The marker after a cut text: "… (N more characters)" in the report's language. */
    private readonly moreCharacters: (count: number) => string,
  ) {}

  startImage(): void {
    this.imageLeft = FILE_TEXT_LIMITS.image;
    this.imageCut = false;
  }

  /** Nothing is left for the current image: further texts would print only their marker. */
  get spent(): boolean {
    return Math.min(this.imageLeft, this.reportLeft) <= 0;
  }

  /** Something of the current image was left out (a text cut, a manifest or finding not listed). */
  get cut(): boolean {
    return this.imageCut;
  }

  /** For what the caller leaves out itself (manifests, findings, actions): the image is then marked as cut too. */
  markCut(): void {
    this.imageCut = true;
  }

  /** The file's `text` as inline pieces, at most `max` printed characters and what is left, then the marker if cut. */
  inlines(text: string, max: number): ContentText[] {
    const { kept, printed, omitted } = cutUserText(text, Math.max(0, Math.min(max, this.imageLeft, this.reportLeft)), this.locale);
    this.imageLeft -= printed;
    this.reportLeft -= printed;
    const pieces = userTextInlines(kept, this.locale);
    if (omitted === 0) return pieces;
    this.imageCut = true;
    return [...pieces, { text: this.moreCharacters(omitted), font: localeFont(this.locale), style: 'muted' }];
  }

  /** `inlines` as one piece of content. */
  text(text: string, max: number): ContentText {
    return joinedUserText(this.inlines(text, max), text, this.locale);
  }
}
