import { AntiAiEngine, AntiAiError, AntiAiErrorCode, AntiAiStrength, generateDevelopmentCredentials, ProtectResult, SigningCredentials } from '@cp/anti-ai';
import { AntiAiFailureCode, OrderFailureCode } from '@cp/contracts';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

/** The input can never be protected: the file fails with this public code (no retry). */
export class ProtectionRejected extends Error {
  constructor(
    readonly code: AntiAiFailureCode | OrderFailureCode,
    message: string,
  ) {
    super(message);
  }
}

const REJECTION_CODES: Record<AntiAiErrorCode, AntiAiFailureCode | OrderFailureCode> = {
  [AntiAiErrorCode.UNSUPPORTED_FORMAT]: AntiAiFailureCode.ANTI_AI_FORMAT_UNSUPPORTED,
  [AntiAiErrorCode.CORRUPT_IMAGE]: OrderFailureCode.WATERMARK_FILE_INVALID,
  [AntiAiErrorCode.TOO_MANY_PIXELS]: OrderFailureCode.WATERMARK_FILE_TOO_LARGE,
  [AntiAiErrorCode.UNSUPPORTED_COLOR_MODE]: OrderFailureCode.WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED,
};

export interface ProtectRequest {
  strength: AntiAiStrength;
  title: string;
  rights?: string;
  tdmPolicyUrl?: string;
  /** The watermark payload (`high`): an issuance id that an extract order resolves. */
  payload: () => Promise<bigint>;
}

const DEFAULT_RIGHTS = 'All rights reserved. Use for AI/ML training, generative AI and text and data mining is not permitted.';
const OTHER_CONSTRAINTS = 'The rights holder reserves all rights against text and data mining and AI/ML training (EU DSM Directive Art. 4(3)).';

/**
 * The anti-AI library behind one seam. Signs with the configured C2PA chain; without one (development),
 * a development chain is generated at start and the manifests show as untrusted to any reader.
 */
@Injectable()
export class AntiAiProtector implements OnApplicationShutdown {
  private readonly logger = new Logger(AntiAiProtector.name);
  private engine?: Promise<AntiAiEngine>;

  constructor(@Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig) {}

  async protect(input: Buffer, request: ProtectRequest): Promise<ProtectResult> {
    const engine = await this.start();
    const needsMark = request.strength === 'high';
    try {
      return await engine.protect(input, {
        strength: request.strength,
        title: request.title,
        rights: request.rights ?? DEFAULT_RIGHTS,
        otherConstraints: OTHER_CONSTRAINTS,
        tdmPolicyUrl: request.tdmPolicyUrl,
        // The same key as embed orders, so a v3 extract order finds the opt-out mark.
        watermark: needsMark
          ? { key: { secret: this.config.watermark.secret, version: 'v3' }, payload: await request.payload(), maxPixels: this.config.watermark.maxPixels }
          : undefined,
      });
    } catch (error) {
      if (error instanceof AntiAiError) {
        throw new ProtectionRejected(REJECTION_CODES[error.code], error.message);
      }
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.engine) {
      await (await this.engine).close();
    }
  }

  private start(): Promise<AntiAiEngine> {
    this.engine ??= this.credentials().then((credentials) => new AntiAiEngine(credentials));
    return this.engine;
  }

  private async credentials(): Promise<SigningCredentials> {
    const configured = this.config.antiAi.c2pa;
    if (configured) {
      return configured;
    }
    this.logger.warn('ANTI_AI_C2PA_CERT_CHAIN_PEM is not set: C2PA manifests are signed with a generated development certificate');
    return generateDevelopmentCredentials();
  }
}
