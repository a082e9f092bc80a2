import { Clock } from '@cp/clock';
import { AntiAiFailureCode, AntiAiOutputTarget } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
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
const MAX_ERROR_BODY = 8 * 1024;

interface Answer {
  status: number;
  body: string;
}

/**
 * Zero-copy delivery: PUTs a result to the client's presigned URL. HTTPS only, redirects never followed,
 * and private, loopback, link-local and metadata addresses refused on the address actually connected to
 * (request-filtering-agent checks the socket, as the uploads service's URL fetcher does). Nothing is kept
 * in our storage; a target that expired, refuses or cannot be reached ends as a public code.
 */
@Injectable()
export class OutputTargetUploader {
  private readonly agent: RequestFilteringHttpsAgent;

  constructor(
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly clock: Clock,
  ) {
    const { allowPrivate, allowedIps, extraCaFile } = config.antiAi.target;
    this.agent = new RequestFilteringHttpsAgent({
      allowPrivateIPAddress: allowPrivate,
      allowIPAddressList: allowedIps,
      allowMetaIPAddress: false,
      keepAlive: false,
      ...(extraCaFile ? { ca: readFileSync(extraCaFile) } : {}),
    });
  }

  async put(target: AntiAiOutputTarget, body: Buffer, contentType: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN, 'not a URL');
    }
    if (url.protocol !== 'https:') {
      throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN, 'only https targets are used');
    }
    for (let attempt = 0; ; attempt++) {
      if (this.clock.nowMs() >= Date.parse(target.presignedUrlExpiresAt)) {
        throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED, 'presignedUrlExpiresAt has passed');
      }
      const outcome = await this.attempt(url, body, contentType);
      if (outcome === 'delivered') {
        return;
      }
      if (attempt >= RETRY_DELAYS_MS.length) {
        throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE, outcome.reason);
      }
      await sleep(RETRY_DELAYS_MS[attempt]);
    }
  }

  /** `delivered`, a transient failure to retry, or throws a permanent rejection. */
  private async attempt(url: URL, body: Buffer, contentType: string): Promise<'delivered' | { reason: string }> {
    let answer: Answer;
    try {
      answer = await this.send(url, body, contentType);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // request-filtering-agent's refusal: "… is not allowed. Because, It is private IP address."
      if (/is not allowed/i.test(message)) {
        throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN, 'private, loopback, link-local or metadata address');
      }
      return { reason: message || 'connection failed' };
    }
    if (answer.status >= 200 && answer.status < 300) {
      return 'delivered';
    }
    if (answer.status >= 500 || answer.status === 429 || answer.status === 408) {
      return { reason: `answered ${answer.status}` };
    }
    // S3 and compatible servers answer an expired presigned URL with 403 AccessDenied "Request has expired".
    if (answer.status === 403 && /expired/i.test(answer.body)) {
      throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED, 'the target answered that the URL expired');
    }
    const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : '';
    throw new OutputTargetRejected(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED, `answered ${answer.status}${redirect}`);
  }

  private send(url: URL, body: Buffer, contentType: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const collect = (response: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_ERROR_BODY) {
            chunks.push(chunk);
            size += chunk.length;
          }
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      };
      try {
        const put = request(
          url,
          {
            method: 'PUT',
            agent: this.agent,
            timeout: this.config.antiAi.target.timeoutMs,
            headers: { 'content-type': contentType, 'content-length': String(body.length), 'user-agent': 'content-protection-delivery/1' },
          },
          collect,
        );
        put.on('timeout', () => put.destroy(new Error('timed out')));
        put.on('error', reject);
        put.end(body);
      } catch (error) {
        // The filtering agent refuses a literal private address synchronously, before any socket exists.
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}
