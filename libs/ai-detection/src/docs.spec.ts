import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ABSTAIN_RATIO, MAX_CALIBRATED_WEIGHT } from './classifier/calibration';
import { C2PA_EVIDENCE_MAX_BYTES, EVIDENCE_MAX_BYTES } from './evidence-budget';
import { fuseEvidence, MAX_LOG_ODDS } from './fusion';
import { SD_MARK_FALSE_ALARM, SD_MARK_MESSAGES, U_VARIANTS } from './sd-watermark/sd-watermark';
import { EVIDENCE_WEIGHTS, UNCALIBRATED_CLASSIFIER_MAX, UNSIGNED_CLAIM } from './weights';

/**
 * docs/ai-detection.md is what a user reads of the fusion: every weight, bound and limit it prints must be the
 * constant the detector uses (a retuned weight left in the doc would show a reader a rule the numbers do not follow).
 */
const ROOT = path.resolve(__dirname, '../../..');
const doc = readFileSync(path.join(ROOT, 'docs/ai-detection.md'), 'utf8');

/** The weight column of the row of the weights table whose first cell starts with `finding`. */
function weightOf(finding: string): string {
  const row = doc.split('\n').find((line) => line.startsWith(`| ${finding}`));
  if (!row) throw new Error(`no row "${finding}" in docs/ai-detection.md`);
  return row.split('|')[2].trim();
}

const signed = (n: number): string => (n > 0 ? `+${n}` : `−${Math.abs(n)}`);
const probability = (logOdds: number): number => fuseEvidence(logOdds === 0 ? [] : [{ signal: 'sdWatermark', finding: 'x', description: '', direction: 'ai', weight: logOdds, details: {} }]).probability;

describe('docs/ai-detection.md against the detector', () => {
  it('prints the weights of the code', () => {
    expect(weightOf('C2PA, signer on the trust list (c2pa-rs says `Trusted`), AI source type')).toBe(signed(EVIDENCE_WEIGHTS.c2paAiSource));
    expect(weightOf('C2PA, signer on the trust list, composite with AI')).toBe(signed(EVIDENCE_WEIGHTS.c2paCompositeAi));
    expect(weightOf('C2PA, signer on the trust list, capture')).toBe(signed(EVIDENCE_WEIGHTS.c2paCapture));
    expect(weightOf('C2PA, valid signature from a signer on **no** trust list')).toBe(`±${UNSIGNED_CLAIM}`);
    expect(weightOf('metadata `DigitalSourceType` AI or composite / capture')).toBe(`${signed(EVIDENCE_WEIGHTS.declaredAi)} / ${signed(EVIDENCE_WEIGHTS.declaredCapture)}`);
    expect(weightOf('generator parameters')).toBe(signed(UNSIGNED_CLAIM));
    expect(weightOf('SD invisible mark beyond')).toBe(signed(EVIDENCE_WEIGHTS.sdWatermark));
    expect(weightOf('classifier without a calibration file')).toContain(`capped at ±${UNCALIBRATED_CLASSIFIER_MAX}`);
    expect(weightOf('classifier with a calibration file')).toContain(`[1/${ABSTAIN_RATIO}, ${ABSTAIN_RATIO}]`);
    expect(weightOf('classifier with a calibration file')).toContain(`±${MAX_CALIBRATED_WEIGHT} at most`);
  });

  it('prints the clamp, its probabilities and those of an unsigned claim as the fusion computes them', () => {
    expect(doc).toContain(`clamped\nto ±${MAX_LOG_ODDS} (probability between ${probability(-MAX_LOG_ODDS)} and ${probability(MAX_LOG_ODDS)})`);
    const low = probability(-UNSIGNED_CLAIM).toFixed(2);
    const high = probability(UNSIGNED_CLAIM).toFixed(2);
    expect(doc).toContain(`at most ±${UNSIGNED_CLAIM} (probability ${low}–${high})`);
  });

  it('prints the SD mark bar and the number of readings it corrects for', () => {
    expect(doc).toContain(`the ${SD_MARK_MESSAGES.length * U_VARIANTS.length} readings tried (Bonferroni) is below **${SD_MARK_FALSE_ALARM.toExponential(0)}**`);
  });

  it('prints the size limits of the evidence', () => {
    expect(doc).toContain(`**${EVIDENCE_MAX_BYTES / 1024} KiB** of JSON`);
    expect(doc).toContain(`the C2PA finding within ${C2PA_EVIDENCE_MAX_BYTES / 1024} KiB of it`);
  });
});

describe('the committed OpenAPI document against the detector', () => {
  // Its example finding is what a client copies into tests and parsers: it named no finding the detector writes
  // (`c2pa.ai_source_type`) with a weight no finding has (4; a trusted AI source type weighs 3).
  it('shows an example finding the detector writes, with its weight', () => {
    const document = JSON.parse(readFileSync(path.join(ROOT, 'libs/sdk/openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, { example?: unknown }> }> };
    };
    const example = document.components.schemas['AiDetectionEvidence'].properties;
    expect({ finding: example['finding'].example, weight: example['weight'].example, direction: example['direction'].example }).toEqual({
      finding: 'c2pa.ai',
      weight: EVIDENCE_WEIGHTS.c2paAiSource,
      direction: 'ai',
    });
  });
});

describe('README.md against docs/benchmarks.md (the last AI detection benchmark)', () => {
  it('quotes the confusion table of the last run', () => {
    const benchmarks = readFileSync(path.join(ROOT, 'docs/benchmarks.md'), 'utf8');
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const row = (truth: string): number[] => {
      const line = benchmarks.split('\n').find((l) => l.startsWith(`| ${truth} (`));
      if (!line) throw new Error(`no confusion row "${truth}"`);
      return line.split('|').slice(1, -1).map((cell) => Number.parseInt(cell.replace(/^\D*\(/, '').trim(), 10));
    };
    const [generatedTotal, generated] = row('generated');
    const [editedTotal, , edited] = row('edited with AI');
    const [capturedTotal, , , captured] = row('captured');
    expect(readme).toContain(
      `${generatedTotal + editedTotal + capturedTotal} real-world-shaped files: 0 on the wrong side (generated ${generated}/${generatedTotal}, edited with AI ${edited}/${editedTotal}, captured ${captured}/${capturedTotal} named`,
    );
  });
});
