import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { Evidence, SignalOutcome } from '../evidence';
import { RgbImage } from '../sd-watermark/sd-watermark';
import { UNCALIBRATED_CLASSIFIER_MAX } from '../weights';
import { calibrationBand, CalibrationBand, ClassifierCalibration, MAX_CALIBRATED_WEIGHT, parseCalibration } from './calibration';

/** An operator-supplied ONNX model scoring image patches; absent unless configured. */
export interface ClassifierConfig {
  modelPath: string;
  /** Square input side in pixels (NCHW float32, RGB): patches are cut at this size from the image as it is. */
  inputSize: number;
  /** Per-channel normalisation of 0–1 pixel values: (v − mean) / std. */
  mean: [number, number, number];
  std: [number, number, number];
  /** Without a calibration: multiplies the logit of the mean patch score, the result capped at ±UNCALIBRATED_CLASSIFIER_MAX. */
  weight: number;
  /** Patches per side (grid × grid patches, one centred in each cell). */
  grid: number;
  /** Calibration file written by `admin ai-classifier calibrate` for this model; its weights replace `weight`. */
  calibrationPath?: string;
}

export interface ClassifierScores {
  meanScore: number;
  patchScores: Float32Array;
}

function logit(p: number): number {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
}

export async function sha256File(path: string): Promise<string> {
  return createHash('sha256').update(await readFile(path)).digest('hex');
}

/**
 * One patch of `size`×`size` pixels centred on (cx, cy) at the image's own resolution (a crop, never a resize: a
 * resize would smooth away the pixel statistics a detector reads); near an edge the window moves inside the image,
 * and an image smaller than the patch repeats its edge pixels.
 */
export function nativePatch(image: RgbImage, cx: number, cy: number, size: number): Uint8Array {
  const out = new Uint8Array(size * size * 3);
  const left = Math.max(0, Math.min(image.width - size, Math.round(cx - size / 2)));
  const top = Math.max(0, Math.min(image.height - size, Math.round(cy - size / 2)));
  for (let y = 0; y < size; y++) {
    const sy = Math.min(image.height - 1, Math.max(0, top + y));
    for (let x = 0; x < size; x++) {
      const sx = Math.min(image.width - 1, Math.max(0, left + x));
      const from = (sy * image.width + sx) * 3;
      out.set(image.data.subarray(from, from + 3), (y * size + x) * 3);
    }
  }
  return out;
}

/**
 * Runs the model on a grid of native-resolution patches of the image (upright: the caller applies the EXIF
 * orientation). The model's output per patch is read as the probability of "AI-generated": one value (already a
 * probability), or two values (softmax, index 1 = AI).
 */
export class OnnxClassifier {
  private constructor(
    private readonly session: InferenceSession,
    private readonly config: ClassifierConfig,
    readonly calibration: ClassifierCalibration | null,
  ) {}

  static async load(config: ClassifierConfig): Promise<OnnxClassifier> {
    let calibration: ClassifierCalibration | null = null;
    if (config.calibrationPath) {
      calibration = parseCalibration(await readFile(config.calibrationPath, 'utf8'));
      // A calibration measures one model: another file under the same name is refused, not silently trusted.
      if (calibration.model.sha256 !== (await sha256File(config.modelPath))) {
        throw new Error(`the calibration ${basename(config.calibrationPath)} was made for another model than ${basename(config.modelPath)}`);
      }
    }
    const session = await InferenceSession.create(config.modelPath, { executionProviders: ['cpu'] });
    return new OnnxClassifier(session, config, calibration);
  }

  async score(image: RgbImage): Promise<ClassifierScores> {
    const { inputSize, grid, mean, std } = this.config;
    const patchArea = inputSize * inputSize;
    const patchScores = new Float32Array(grid * grid);
    for (let row = 0; row < grid; row++) {
      for (let column = 0; column < grid; column++) {
        const pixels = nativePatch(image, ((column + 0.5) * image.width) / grid, ((row + 0.5) * image.height) / grid, inputSize);
        const input = new Float32Array(3 * patchArea);
        for (let i = 0; i < patchArea; i++) {
          for (let c = 0; c < 3; c++) {
            input[c * patchArea + i] = (pixels[i * 3 + c] / 255 - mean[c]) / std[c];
          }
        }
        const feeds = { [this.session.inputNames[0]]: new Tensor('float32', input, [1, 3, inputSize, inputSize]) };
        const output = (await this.session.run(feeds))[this.session.outputNames[0]];
        const values = output.data as Float32Array;
        patchScores[row * grid + column] = values.length >= 2 ? softmaxSecond(values[0], values[1]) : values[0];
      }
    }
    return { meanScore: patchScores.reduce((s, v) => s + v, 0) / patchScores.length, patchScores };
  }

  async classify(image: RgbImage): Promise<SignalOutcome> {
    const { grid } = this.config;
    const { meanScore, patchScores } = await this.score(image);
    const evidence = this.calibration ? this.calibrated(meanScore) : this.uncalibrated(meanScore);
    return { evidence: [evidence], regional: { signal: 'classifier', columns: grid, rows: grid, values: patchScores } };
  }

  private uncalibrated(meanScore: number): Evidence {
    const contribution = Math.max(-UNCALIBRATED_CLASSIFIER_MAX, Math.min(UNCALIBRATED_CLASSIFIER_MAX, this.config.weight * logit(meanScore)));
    return {
      signal: 'classifier',
      finding: 'classifier.score',
      description: `The configured pixel classifier scored ${this.config.grid ** 2} patches; mean score ${meanScore.toFixed(3)}. It is not calibrated, so it weighs at most as much as an unsigned claim and never decides alone.`,
      direction: contribution > 0 ? 'ai' : contribution < 0 ? 'real' : 'neutral',
      weight: Math.round(contribution * 1000) / 1000,
      details: { meanScore: Math.round(meanScore * 10_000) / 10_000, patches: this.config.grid ** 2, weight: this.config.weight, calibrated: false },
    };
  }

  private calibrated(meanScore: number): Evidence {
    const calibration = this.calibration!;
    const band = calibrationBand(calibration, meanScore);
    const why = band.weight === 0
      ? 'the operator\'s labelled images score alike in this band, so the classifier abstains'
      : `likelihood ratio ${band.likelihoodRatio} measured on ${band.real} real and ${band.generated} generated images in this band${capOf(band, calibration)}`;
    return {
      signal: 'classifier',
      finding: band.weight === 0 ? 'classifier.abstained' : 'classifier.calibrated',
      description: `The configured pixel classifier scored ${this.config.grid ** 2} patches; mean score ${meanScore.toFixed(3)} (band ${band.from.toFixed(2)}–${band.to.toFixed(2)}): ${why}.`,
      direction: band.weight > 0 ? 'ai' : band.weight < 0 ? 'real' : 'neutral',
      weight: band.weight,
      details: {
        meanScore: Math.round(meanScore * 10_000) / 10_000,
        patches: this.config.grid ** 2,
        calibrated: true,
        calibratedAt: calibration.createdAt,
        likelihoodRatio: band.likelihoodRatio,
        bandReal: band.real,
        bandGenerated: band.generated,
        maxFalsePositiveRate: calibration.maxFalsePositiveRate,
      },
    };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/**
 * Why a band weighs less than ln(its measured ratio), said in the finding: printed beside a weight of 0.5, a ratio of
 * 80 would read as a weight the detector did not give (calibration.ts: `bandWeight`).
 */
function capOf(band: CalibrationBand, calibration: ClassifierCalibration): string {
  const full = Math.log(band.likelihoodRatio);
  // The weight is rounded to 3 decimals: anything within that of the full ratio is not a cap.
  if (band.weight === 0 || Math.abs(band.weight) >= Math.abs(full) - 1e-3) return '';
  if (Math.abs(band.weight) >= MAX_CALIBRATED_WEIGHT) return `; capped at ±${MAX_CALIBRATED_WEIGHT} (a few hundred images do not measure more)`;
  const bound = `${Math.round(calibration.maxFalsePositiveRate * 10_000) / 100}%`;
  const from = band.weight > 0 ? calibration.decisiveAiFrom : calibration.decisiveCaptureBelow;
  const where = from === null ? 'holds for no score' : band.weight > 0 ? `holds only from score ${from}` : `holds only below score ${from}`;
  const which = band.weight > 0 ? `the operator's false-positive bound of ${bound}` : `the operator's bound of ${bound} on generated images scored as captures`;
  return `; weighed at most ±${UNCALIBRATED_CLASSIFIER_MAX}, as an unsigned claim: ${which} ${where}`;
}

function softmaxSecond(a: number, b: number): number {
  const m = Math.max(a, b);
  const ea = Math.exp(a - m);
  const eb = Math.exp(b - m);
  return eb / (ea + eb);
}
