import sharp, { Metadata } from 'sharp';
import { C2paReaderLimits, closeC2paReader, configureC2paReader, configureC2paTrust } from './c2pa/c2pa-reader';
import { C2paTrustConfig } from './c2pa/c2pa-trust';
import { readC2pa } from './c2pa/c2pa.signal';
import { ClassifierConfig, OnnxClassifier } from './classifier/onnx-classifier';
import { Evidence, RegionalEvidence, SignalId, SignalOutcome } from './evidence';
import { fitEvidence } from './evidence-budget';
import { FusedProbability, fuseEvidence, independentEvidence } from './fusion';
import { combineRegional, orientRegional } from './heatmap';
import { MetadataReader } from './metadata/metadata.signal';
import { sdMarkSignal } from './sd-watermark/sd-mark.signal';
import { RgbImage } from './sd-watermark/sd-watermark';

export interface AiDetectorOptions {
  /** Images above this many pixels are refused before decoding. */
  maxPixels: number;
  classifier?: ClassifierConfig;
  /** Limits of the C2PA reader process (one per process, shared by every detector). */
  c2pa?: Partial<C2paReaderLimits>;
  /** Trust lists (default: the dated snapshots in libs/ai-detection/trust); read at start, a bad file stops it. */
  c2paTrust?: C2paTrustConfig;
}

export interface DetectionResult extends FusedProbability {
  evidence: Evidence[];
  /** Signals that ran (the classifier only when configured). */
  signals: SignalId[];
  /** Size of the image as shown: after its EXIF orientation (orientations 5–8 swap the stored width and height). */
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
    configureC2paTrust(options.c2paTrust);
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
    const storedWidth = meta.width ?? 0;
    const storedHeight = meta.height ?? 0;
    const format = meta.format ?? 'unknown';
    if (!MIME_TYPES[format] || storedWidth === 0 || storedHeight === 0) {
      throw new DetectionInputRejected('unsupported', `format ${format} is not analysed`);
    }
    if (storedWidth * storedHeight > this.options.maxPixels) {
      throw new DetectionInputRejected('tooLarge', `${storedWidth}×${storedHeight} pixels is above the limit`);
    }
    const orientation = meta.orientation ?? 1;
    const upright = orientation >= 5 && orientation <= 8;
    const width = upright ? storedHeight : storedWidth;
    const height = upright ? storedWidth : storedHeight;
    // The pixels as stored: the SD mark is written into them, whatever orientation tag a later tool adds.
    const stored = await this.decode(bytes, false);
    const outcomes: SignalOutcome[] = [];
    const signals: SignalId[] = ['c2pa', 'metadata', 'sdWatermark'];
    outcomes.push(await readC2pa(bytes, MIME_TYPES[format]));
    outcomes.push(await this.metadata.read(bytes));
    const mark = sdMarkSignal(stored);
    outcomes.push({ ...mark, ...(mark.regional ? { regional: orientRegional(mark.regional, orientation) } : {}) });
    if (this.classifier) {
      signals.push('classifier');
      // The classifier looks at the image as shown (a portrait stays a portrait), at its own resolution.
      outcomes.push(await this.classifier.classify(orientation === 1 ? stored : await this.decode(bytes, true)));
    }
    // Within the per-image size limit whatever the file says (the weights, and so the fusion, are unchanged).
    const evidence = fitEvidence(independentEvidence(outcomes.flatMap((o) => o.evidence)));
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

  /** RGB pixels, as stored or turned upright by the EXIF orientation. */
  private async decode(bytes: Buffer, upright: boolean): Promise<RgbImage> {
    try {
      const pipeline = sharp(bytes, { limitInputPixels: this.options.maxPixels });
      const { data, info } = await (upright ? pipeline.rotate() : pipeline).removeAlpha().toColourspace('srgb').raw()
        .toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.height };
    } catch {
      throw new DetectionInputRejected('unsupported', 'the image data cannot be decoded');
    }
  }

  async close(): Promise<void> {
    await this.metadata.close();
    await this.classifier?.close();
    await closeC2paReader();
  }
}
