import { buildCalibration, ClassifierCalibration, ClassifierConfig, OnnxClassifier, sha256File } from '@cp/ai-detection';
import { readdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import sharp from 'sharp';

/** What `admin ai-classifier calibrate` needs: the model, its input settings, and the operator's labelled folders. */
export interface CalibrationRequest extends Pick<ClassifierConfig, 'modelPath' | 'inputSize' | 'mean' | 'std' | 'grid'> {
  realDir: string;
  generatedDir: string;
  outPath: string;
  bands: number;
  /** The false-positive rate the operator accepts for a decision from the classifier alone. */
  maxFalsePositiveRate: number;
  thresholds: number[];
  now: Date;
}

export interface CalibrationSummary {
  calibration: ClassifierCalibration;
  outPath: string;
  /** Files that are not readable images (listed, never fatal). */
  skipped: string[];
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff', '.gif', '.avif']);

/**
 * Runs the model on every image of the two folders exactly as the detector does (upright, native-resolution
 * patches, mean patch score), and writes the calibration: likelihood ratios per score band with their sample
 * counts and date, ROC AUC, false-positive rates at the chosen thresholds.
 */
export async function calibrateClassifier(request: CalibrationRequest): Promise<CalibrationSummary> {
  const classifier = await OnnxClassifier.load({
    modelPath: request.modelPath,
    inputSize: request.inputSize,
    mean: request.mean,
    std: request.std,
    weight: 0,
    grid: request.grid,
  });
  const skipped: string[] = [];
  const scoreFolder = async (dir: string): Promise<number[]> => {
    const names = (await readdir(dir)).filter((name) => IMAGE_EXTENSIONS.has(extname(name).toLowerCase())).sort();
    const scores: number[] = [];
    for (const name of names) {
      const file = join(dir, name);
      let image: { data: Buffer; width: number; height: number };
      try {
        const { data, info } = await sharp(file).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
        image = { data, width: info.width, height: info.height };
      } catch {
        skipped.push(file);
        continue;
      }
      scores.push((await classifier.score(image)).meanScore);
    }
    return scores;
  };
  try {
    const real = await scoreFolder(request.realDir);
    const generated = await scoreFolder(request.generatedDir);
    if (real.length === 0 || generated.length === 0) {
      throw new CalibrationInputError(`need at least one readable image in each folder (real: ${real.length}, generated: ${generated.length})`);
    }
    const calibration = buildCalibration(real, generated, {
      bands: request.bands,
      maxFalsePositiveRate: request.maxFalsePositiveRate,
      thresholds: request.thresholds,
      model: { fileName: basename(request.modelPath), sha256: await sha256File(request.modelPath) },
      now: request.now,
    });
    await writeFile(request.outPath, `${JSON.stringify(calibration, null, 2)}\n`);
    return { calibration, outPath: request.outPath, skipped };
  } finally {
    await classifier.close();
  }
}

/** The operator's input cannot be calibrated (an empty folder, a bad option): exit 2 with the reason. */
export class CalibrationInputError extends Error {}

const percent = (value: number): string => `${(value * 100).toFixed(2)}%`;

/** The summary as the command prints it: a table of rates per threshold and per band. */
export function calibrationReport(summary: CalibrationSummary): string {
  const c = summary.calibration;
  return [
    `model ${c.model.fileName} (sha256 ${c.model.sha256.slice(0, 16)}…), ${c.samples.real} real and ${c.samples.generated} generated images, ${c.createdAt}`,
    `ROC AUC ${c.rocAuc.toFixed(4)}`,
    `false-positive bound set: ${percent(c.maxFalsePositiveRate)}; decides towards AI from score ${c.decisiveAiFrom ?? 'never (not enough real images to bound the rate)'}; towards capture below ${c.decisiveCaptureBelow ?? 'never'}`,
    '',
    '| threshold | false-positive rate | 95% upper bound | true-positive rate |',
    '|---|---|---|---|',
    ...c.thresholds.map((t) => `| ${t.threshold} | ${percent(t.falsePositiveRate)} | ${percent(t.falsePositiveRateUpper95)} | ${percent(t.truePositiveRate)} |`),
    '',
    '| score band | real | generated | likelihood ratio | weight |',
    '|---|---|---|---|---|',
    ...c.bands.map((b) => `| ${b.from.toFixed(2)}–${b.to.toFixed(2)} | ${b.real} | ${b.generated} | ${b.likelihoodRatio} | ${b.weight === 0 ? '0 (abstains)' : b.weight} |`),
    '',
    `wrote ${summary.outPath}${summary.skipped.length ? `; skipped ${summary.skipped.length} unreadable file(s): ${summary.skipped.join(', ')}` : ''}`,
  ].join('\n');
}
