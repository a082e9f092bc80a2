import { Clock } from '@cp/clock';
import { AntiAiFailureCode, AntiAiOutputTarget } from '@cp/contracts';
import { EgressAnswer, EgressClient, EgressError, EgressFailure } from '@cp/egress';
import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

/** The file cannot be delivered to its zero-copy target: fails with this public code. */
export class OutputTargetRejected extends Error {
  constructor(
    readonly code: AntiAiFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** Pauses between attempts on network trouble or a 5xx/429 answer; then the file fails as unreachable. */
const RETRY_DELAYS_MS = [500, 2000];
/** Of a refusal's body, enough to read S3's error code ("Request has expired"). */
const MAX_ERROR_BODY = 8 * 1024;

/**
 * Zero-copy delivery: PUTs a result to the client's presigned URL through the egress module. HTTPS only,
 * redirects never followed, private, loopback, link-local and metadata addresses refused on every resolved
 * address and the connected socket, and one deadline (ANTI_AI_TARGET_DEADLINE_MS) for the whole delivery with
 * its retries, so a target that reads slowly or stalls cannot hold the processor's slot. A 2xx answer is a
 * delivery by its status (its body is not waited for). Nothing is kept in our storage; a target that expired,
 * refuses or cannot be reached ends as a public code.
 */
@Injectable()
export class OutputTargetUploader {
  private readonly egress: EgressClient;

  constructor(
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly clock: Clock,
  ) {
    const { allowPrivate, allowedIps, extraCaFile } = config.antiAi.target;
    this.egress = new EgressClient({
      userAgent: 'content-protection-delivery/1',
      schemes: ['https:'],
      allowPrivate,
      allowedIps,
      ...(extraCaFile ? { extraCa: readFileSync(extraCaFile) } : {}),
    });
  }

  async put(target: AntiAiOutputTarget, body: Buffer, contentType: string): Promise<void> {
    try {
      this.egress.parse(target.url);
    } catch (error) {
      throw this.permanent(error);
    }
    const { deadlineMs, maxBytes } = this.config.antiAi.target;
    if (body.length > maxBytes) {
      throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED, `result of ${body.length} bytes is larger than ${maxBytes}`);
    }
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      if (this.clock.nowMs() >= Date.parse(target.presignedUrlExpiresAt)) {
        throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED, 'presignedUrlExpiresAt has passed');
      }
      const remaining = Math.floor(deadlineMs - (performance.now() - started));
      if (remaining <= 0) {
        throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE, `not delivered within ${deadlineMs} ms`);
      }
      const outcome = await this.attempt(target.url, body, contentType, remaining);
      if (outcome === 'delivered') {
        return;
      }
      const left = deadlineMs - (performance.now() - started);
      if (attempt >= RETRY_DELAYS_MS.length || left <= RETRY_DELAYS_MS[attempt]) {
        throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE, outcome.reason);
      }
      await sleep(RETRY_DELAYS_MS[attempt]);
    }
  }

  /** `delivered`, a transient failure to retry, or throws a permanent rejection. */
  private async attempt(url: string, body: Buffer, contentType: string, deadlineMs: number): Promise<'delivered' | { reason: string }> {
    let answer: EgressAnswer;
    try {
      answer = await this.egress.send({
        url,
        method: 'PUT',
        headers: { 'content-type': contentType },
        body,
        deadlineMs,
        maxRequestBytes: this.config.antiAi.target.maxBytes,
        keepErrorBodyBytes: MAX_ERROR_BODY,
      });
    } catch (error) {
      if (error instanceof EgressError && (error.reason === EgressFailure.NETWORK || error.reason === EgressFailure.DEADLINE)) {
        return { reason: error.message };
      }
      throw this.permanent(error);
    }
    if (answer.status >= 200 && answer.status < 300) {
      return 'delivered';
    }
    if (answer.status >= 500 || answer.status === 429 || answer.status === 408) {
      return { reason: `answered ${answer.status}` };
    }
    // S3 and compatible servers answer an expired presigned URL with 403 AccessDenied "Request has expired".
    if (answer.status === 403 && /expired/i.test(answer.body.toString('utf8'))) {
      throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED, 'the target answered that the URL expired');
    }
    throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED, `answered ${answer.status}`);
  }

  /** A failure retrying cannot mend, as its public code. */
  private permanent(error: unknown): Error {
    if (!(error instanceof EgressError)) {
      return error instanceof Error ? error : new Error(String(error));
    }
    switch (error.reason) {
      case EgressFailure.BAD_URL:
        return new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN, error.message);
      case EgressFailure.BLOCKED_ADDRESS:
        return new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN, 'private, loopback, link-local or metadata address');
      default:
        // A redirect (never followed) or a body over the cap.
        return new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED, error.message);
    }
  }
}
