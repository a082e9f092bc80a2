import { ANTI_AI_DEFAULT_STRENGTH, AntiAiOptionsDto, AntiAiOutputTargetDto, AntiAiStrengthValue, DomainException, ErrorCode, isPermittedHttpsUrl, mediaKindOf } from '@cp/contracts';
import { OrderOptions } from '../../domain/order';
import { onePerInput } from '../order-outputs';
import { NewOrder } from '../../orders/order-creation.service';

/** What an anti-AI order keeps from its request for its processing (`Order.state.options`). */
export interface AntiAiOrderOptions extends OrderOptions {
  orderName?: string;
  strength: AntiAiStrengthValue;
  tdmPolicyUrl?: string;
  rights?: string;
  /** Results go to the client's targets only (`noDownload`: the aggregate offers no download). */
  zeroCopy?: true;
  noDownload?: true;
  /**
   * Zero-copy: the client's presigned PUT target of each file, by file name; absent otherwise. Its `url` is removed
   * when the order expires (`OrdersRepository.forgetClientUrls`): nothing reads the targets of an expired order.
   */
  targets?: Record<string, { url: string; presignedUrlExpiresAt: string }>;
}

export interface AntiAiRequest {
  files: Array<{ fileName: string; originalFileUrl?: string }>;
  orderName?: string;
  options?: AntiAiOptionsDto;
  zeroCopy?: boolean;
  outputTargets?: AntiAiOutputTargetDto[];
}

/** Anti-AI credit cost: 1 credit per image (docs/api-decisions.md, issue 15). */
export const ANTI_AI_CREDITS_PER_FILE = 1;

function zeroCopyTargets(request: AntiAiRequest, allowedTargetIps: readonly string[]): AntiAiOrderOptions['targets'] {
  const targets = request.outputTargets ?? [];
  if (!request.zeroCopy) {
    if (targets.length > 0) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, 'outputTargets need mode.zeroCopy = true');
    }
    return undefined;
  }
  // SSRF: a target on a private, loopback or metadata address is refused here and again on the connected socket.
  if (targets.some((target) => !isPermittedHttpsUrl(target.url, allowedTargetIps))) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, 'outputTargets[].url must be HTTPS on a public address');
  }
  const names = request.files.map((file) => file.fileName);
  if (new Set(names).size !== names.length) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, 'zero-copy orders need unique file names (outputTargets[].fileKey names a file)');
  }
  const byName = new Map(targets.map((target) => [target.fileKey, target]));
  if (byName.size !== targets.length || targets.length !== names.length || names.some((name) => !byName.has(name))) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, 'zero-copy orders need exactly one outputTarget per file, its fileKey being the file name');
  }
  return Object.fromEntries(names.map((name) => {
    const target = byName.get(name) as AntiAiOutputTargetDto;
    return [name, { url: target.url, presignedUrlExpiresAt: target.presignedUrlExpiresAt }];
  }));
}

/**
 * Creation rules of anti-AI orders: one output per image, 1 credit each, the options kept with the order.
 * `allowedTargetIps`: private IPs an operator lets zero-copy targets use (a local test stack; none in production).
 */
export function antiAiOrderRules(request: AntiAiRequest, allowedTargetIps: readonly string[] = []): Pick<NewOrder, 'type' | 'credits' | 'files' | 'outputs' | 'options'> {
  const targets = zeroCopyTargets(request, allowedTargetIps);
  const options: AntiAiOrderOptions = {
    strength: request.options?.strength ?? ANTI_AI_DEFAULT_STRENGTH,
    ...(request.orderName ? { orderName: request.orderName } : {}),
    ...(request.options?.tdmPolicyUrl ? { tdmPolicyUrl: request.options.tdmPolicyUrl } : {}),
    ...(request.options?.rights ? { rights: request.options.rights } : {}),
    ...(targets ? { zeroCopy: true as const, noDownload: true as const, targets } : {}),
  };
  return {
    type: 'antiAi',
    credits: request.files.length * ANTI_AI_CREDITS_PER_FILE,
    files: request.files.map((file) => ({ role: 'input', fileName: file.fileName, sourceUrl: file.originalFileUrl ?? null, mediaKind: mediaKindOf(file.fileName) })),
    outputs: onePerInput,
    options,
  };
}

/** The options of a loaded anti-AI order (written by `antiAiOrderRules`). */
export function antiAiOptionsOf(options: OrderOptions | null): AntiAiOrderOptions {
  return { strength: ANTI_AI_DEFAULT_STRENGTH, ...(options ?? {}) };
}
