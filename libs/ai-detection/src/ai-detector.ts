import sharp, { Metadata, OutputInfo } from 'sharp';
import { C2paReaderLimits, closeC2paReader, configureC2paReader } from './c2pa/c2pa-reader';
import { readC2pa } from './c2pa/c2pa.signal';
import { ClassifierConfig, OnnxClassifier } from './classifier/onnx-classifier';
import { Evidence, RegionalEvidence, SignalId, SignalOutcome } from './evidence';
import { FusedProbability, fuseEvidence } from './fusion';
import { combineRegional } from './heatmap';
import { MetadataReader } from './metadata/metadata.signal';
import { sdMarkSignal } from './sd-watermark/sd-mark.signal';

export interface AiDetectorOptions {
  /** Images above this many pixels are refused before decoding. */
  maxPixels: number;
  classifier?: ClassifierConfig;
  /** Limits of the C2PA reader process (one per process, shared by every detector). */
  c2pa?: Partial<C2paReaderLimits>;
}

export interface DetectionResult extends FusedProbability {
  evidence: Evidence[];
  /** Signals that ran (the classifier only when configured). */
  signals: SignalId[];
  width: number;
  height: number;
  format: string;
  /** Regional evidence combined for the heatmap, or null when every finding is file-level. */
  regional: RegionalEvidence | null;
  /** Plain statement when no heatmap can be drawn. */
  heatmapNote: string | null;
}

/** The input cannot be analysed at all (not an image, too large): a permanent failure with a public code. */
export class DetectionInputRejected extends Error {
  constructor(
    readonly reason: 'unsupported' | 'tooLarge',
    message: string,
  ) {
    super(message);
  }
}

const MIME_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', tiff: 'image/tiff', gif: 'image/gif', avif: 'image/avif', heif: 'image/heif',
};

/** Runs every available signal on one image and fuses their evidence. */
export class AiDetector {
  private readonly metadata = new MetadataReader();

  private constructor(
    private readonly options: AiDetectorOptions,
    private readonly classifier: OnnxClassifier | null,
  ) {}

  static async create(options: AiDetectorOptions): Promise<AiDetector> {
    if (options.c2pa) configureC2paReader(options.c2pa);
    const classifier = options.classifier ? await OnnxClassifier.load(options.classifier) : null;
    return new AiDetector(options, classifier);
  }

  async detect(bytes: Buffer): Promise<DetectionResult> {
    let meta: Metadata;
    try {
      meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    } catch {
      throw new DetectionInputRejected('unsupported', 'not a readable image');
    }
    const width = meta.width ?? 0;
    const height = meta.height ?? 0;
    const format = meta.format ?? 'unknown';
    if (!MIME_TYPES[format] || width === 0 || height === 0) {
      throw new DetectionInputRejected('unsupported', `format ${format} is not analysed`);
    }
    if (width * height > this.options.maxPixels) {
      throw new DetectionInputRejected('tooLarge', `${width}×${height} pixels is above the limit`);
    }
    let raw: { data: Buffer; info: OutputInfo };
    try {
      raw = await sharp(bytes, { limitInputPixels: this.options.maxPixels }).removeAlpha().toColourspace('srgb').raw()
        .toBuffer({ resolveWithObject: true });
    } catch {
      throw new DetectionInputRejected('unsupported', 'the image data cannot be decoded');
    }
    const outcomes: SignalOutcome[] = [];
    const signals: SignalId[] = ['c2pa', 'metadata', 'sdWatermark'];
    outcomes.push(await readC2pa(bytes, MIME_TYPES[format]));
    outcomes.push(await this.metadata.read(bytes));
    outcomes.push(sdMarkSignal({ data: raw.data, width: raw.info.width, height: raw.info.height }));
    if (this.classifier) {
      signals.push('classifier');
      outcomes.push(await this.classifier.classify(bytes, raw.info.width, raw.info.height));
    }
    const evidence = outcomes.flatMap((o) => o.evidence);
    const regional = combineRegional(outcomes.flatMap((o) => (o.regional ? [o.regional] : [])));
    return {
      ...fuseEvidence(evidence),
      evidence,
      signals,
      width,
      height,
      format,
      regional,
      heatmapNote: regional ? null : 'Only file-level evidence: no signal gives per-region evidence for this image, so no heatmap is drawn.',
    };
  }

  async close(): Promise<void> {
    await this.metadata.close();
    await this.classifier?.close();
    await closeC2paReader();
  }
}
