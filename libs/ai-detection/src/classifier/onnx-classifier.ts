import { InferenceSession, Tensor } from 'onnxruntime-node';
import sharp from 'sharp';
import { Evidence, SignalOutcome } from '../evidence';

/** An operator-supplied ONNX model scoring image patches; absent unless configured. */
export interface ClassifierConfig {
  modelPath: string;
  /** Square input side in pixels (NCHW float32, RGB). */
  inputSize: number;
  /** Per-channel normalisation of 0–1 pixel values: (v − mean) / std. */
  mean: [number, number, number];
  std: [number, number, number];
  /** Multiplies the clamped logit of the mean patch score (how far the operator trusts the model). */
  weight: number;
  /** Patches per side (grid × grid patches). */
  grid: number;
}

/** Highest |logit| a classifier may contribute before its weight: a bare model score never decides alone. */
const MAX_CLASSIFIER_LOGIT = 3;

function logit(p: number): number {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
}

/**
 * Runs the model on a grid of patches of the whole image. The model's output per patch is read as the probability
 * of "AI-generated": one value (already a probability), or two values (softmax, index 1 = AI).
 */
export class OnnxClassifier {
  private constructor(
    private readonly session: InferenceSession,
    private readonly config: ClassifierConfig,
  ) {}

  static async load(config: ClassifierConfig): Promise<OnnxClassifier> {
    const session = await InferenceSession.create(config.modelPath, { executionProviders: ['cpu'] });
    return new OnnxClassifier(session, config);
  }

  async classify(bytes: Buffer, width: number, height: number): Promise<SignalOutcome> {
    const { inputSize, grid, mean, std } = this.config;
    const patchArea = inputSize * inputSize;
    const scores = new Float32Array(grid * grid);
    for (let row = 0; row < grid; row++) {
      for (let column = 0; column < grid; column++) {
        const left = Math.floor((column * width) / grid);
        const top = Math.floor((row * height) / grid);
        const region = {
          left,
          top,
          width: Math.max(1, Math.floor(((column + 1) * width) / grid) - left),
          height: Math.max(1, Math.floor(((row + 1) * height) / grid) - top),
        };
        const pixels = await sharp(bytes).rotate().removeAlpha().toColourspace('srgb').extract(region)
          .resize(inputSize, inputSize, { fit: 'fill' }).raw().toBuffer();
        const input = new Float32Array(3 * patchArea);
        for (let i = 0; i < patchArea; i++) {
          for (let c = 0; c < 3; c++) {
            input[c * patchArea + i] = (pixels[i * 3 + c] / 255 - mean[c]) / std[c];
          }
        }
        const feeds = { [this.session.inputNames[0]]: new Tensor('float32', input, [1, 3, inputSize, inputSize]) };
        const output = (await this.session.run(feeds))[this.session.outputNames[0]];
        const values = output.data as Float32Array;
        scores[row * grid + column] = values.length >= 2 ? softmaxSecond(values[0], values[1]) : values[0];
      }
    }
    const meanScore = scores.reduce((s, v) => s + v, 0) / scores.length;
    const contribution = this.config.weight * Math.max(-MAX_CLASSIFIER_LOGIT, Math.min(MAX_CLASSIFIER_LOGIT, logit(meanScore)));
    const evidence: Evidence = {
      signal: 'classifier',
      finding: 'classifier.score',
      description: `The configured pixel classifier scored ${grid * grid} patches; mean score ${meanScore.toFixed(3)} (a model score: its error rate is what the operator measured for it, not known here).`,
      direction: contribution > 0 ? 'ai' : contribution < 0 ? 'real' : 'neutral',
      weight: Math.round(contribution * 1000) / 1000,
      details: { meanScore: Math.round(meanScore * 10_000) / 10_000, patches: grid * grid, weight: this.config.weight },
    };
    return { evidence: [evidence], regional: { signal: 'classifier', columns: grid, rows: grid, values: scores } };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

function softmaxSecond(a: number, b: number): number {
  const m = Math.max(a, b);
  const ea = Math.exp(a - m);
  const eb = Math.exp(b - m);
  return eb / (ea + eb);
}
