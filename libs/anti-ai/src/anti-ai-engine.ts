import { DEFAULT_MAX_PIXELS, embedImage, inspectImage, PNG_METADATA_MAX_BYTES, WatermarkError, WatermarkErrorCode, withinPngMetadataBudget } from '@cp/watermark';
import sharp from 'sharp';
import { ContentCredentialsSigner, ManifestRequest } from './content-credentials';
import { OptOutMetadataWriter } from './opt-out-metadata';
import { loadSigningCredentials, SigningCredentials } from './signing-credentials';
import {
  AntiAiError,
  AntiAiErrorCode,
  AntiAiFormat,
  AntiAiLayer,
  CONTENT_TYPES,
  DATA_MINING_BY_STRENGTH,
  LAYERS_BY_STRENGTH,
  ProtectOptions,
  ProtectResult,
} from './types';

const WATERMARK_ERRORS: Record<WatermarkErrorCode, AntiAiErrorCode> = {
  [WatermarkErrorCode.UNSUPPORTED_FORMAT]: AntiAiErrorCode.UNSUPPORTED_FORMAT,
  [WatermarkErrorCode.CORRUPT_IMAGE]: AntiAiErrorCode.CORRUPT_IMAGE,
  [WatermarkErrorCode.TOO_MANY_PIXELS]: AntiAiErrorCode.TOO_MANY_PIXELS,
  [WatermarkErrorCode.UNSUPPORTED_COLOR_MODE]: AntiAiErrorCode.UNSUPPORTED_COLOR_MODE,
};

/**
 * Protects one image against AI training in the layers its strength selects (docs/anti-ai.md):
 * watermark first (the only step that re-encodes), then the opt-out metadata, then the signed C2PA
 * manifest last, because it hashes the finished file.
 */
export class AntiAiEngine {
  private readonly metadata = new OptOutMetadataWriter();
  private readonly credentials: ContentCredentialsSigner;

  constructor(signing: SigningCredentials) {
    this.credentials = new ContentCredentialsSigner(loadSigningCredentials(signing));
  }

  async protect(input: Buffer, options: ProtectOptions): Promise<ProtectResult> {
    const format = await this.formatOf(input, options.watermark?.maxPixels);
    const layers = LAYERS_BY_STRENGTH[options.strength];
    let data = input;
    const actions: ManifestRequest['actions'] = [];
    if (layers.includes('watermark')) {
      if (!options.watermark) {
        throw new Error(`strength ${options.strength} needs a watermark key and payload`);
      }
      data = await this.embed(data, options.watermark);
      actions.push({ action: 'c2pa.edited', description: 'invisible watermark carrying the AI-training opt-out payload' });
    }
    data = await this.metadata.write(data, format, {
      dataMining: DATA_MINING_BY_STRENGTH[options.strength],
      otherConstraints: options.otherConstraints,
      rights: options.rights,
      tdmPolicyUrl: options.tdmPolicyUrl,
    });
    actions.push({ action: 'c2pa.edited.metadata', description: 'AI-training opt-out written to XMP (IPTC PLUS, TDMRep, dc:rights)' });
    if (layers.includes('contentCredentials')) {
      data = await this.credentials.sign(data, format, { title: options.title, actions });
    }
    return { data, format, contentType: CONTENT_TYPES[format], layers: [...layers] as AntiAiLayer[] };
  }

  async close(): Promise<void> {
    await this.metadata.close();
  }

  private async formatOf(input: Buffer, maxPixels?: number): Promise<AntiAiFormat> {
    const info = await this.guard(() => inspectImage(input, maxPixels));
    if (info.format === 'bmp') {
      throw new AntiAiError(AntiAiErrorCode.UNSUPPORTED_FORMAT, 'BMP has no place for XMP or a C2PA manifest');
    }
    // ExifTool inflates every compressed chunk of a PNG it rewrites, without a limit (a 1 MB file took it to 2.1 GB),
    // and keeps its text chunks whole: a file whose metadata does not fit the budget is refused before it gets there.
    const omitted = info.format === 'png' ? withinPngMetadataBudget(input).omitted : [];
    if (omitted.length > 0) {
      throw new AntiAiError(AntiAiErrorCode.CORRUPT_IMAGE, `metadata chunks (${omitted.join(', ')}) do not fit within ${PNG_METADATA_MAX_BYTES} bytes (inflated), or do not inflate`);
    }
    // The metadata layers never decode the picture: decode it once, so a truncated or damaged file is
    // refused instead of being returned "protected" and still broken.
    try {
      await sharp(input, { failOn: 'truncated', limitInputPixels: maxPixels ?? DEFAULT_MAX_PIXELS }).raw().toBuffer();
    } catch (error) {
      throw new AntiAiError(AntiAiErrorCode.CORRUPT_IMAGE, error instanceof Error ? error.message : 'undecodable');
    }
    return info.format;
  }

  private async embed(input: Buffer, watermark: NonNullable<ProtectOptions['watermark']>): Promise<Buffer> {
    const result = await this.guard(() => embedImage(input, watermark.payload, { key: watermark.key, maxPixels: watermark.maxPixels }));
    return result.data;
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof WatermarkError) {
        throw new AntiAiError(WATERMARK_ERRORS[error.code], error.message);
      }
      throw error;
    }
  }
}
