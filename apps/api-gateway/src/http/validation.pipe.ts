import { DomainException, ErrorCode } from '@cp/contracts';
import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';

/**
 * The first key of `plain` (at any depth) that did not reach its counterpart in `built`, or null. class-transformer
 * silently skips some keys when it builds a DTO: `__proto__` and `constructor`, and any key whose name the new
 * instance already answers with a function or a getter (`toString`, `valueOf`, `hasOwnProperty`,
 * `__defineGetter__`, a DTO's own methods…). class-validator's whitelist only sees the built instance, so such a
 * key was never "unknown": it vanished and the request passed. Comparing own keys (never `in` or `obj[key]` on the
 * plain side, which would find the prototype's members) catches exactly what was lost. Iterative: the input
 * hygiene bounds the depth, but a walk of request data never recurses on the stack.
 */
export function firstUnbuiltKey(plain: unknown, built: unknown): string | null {
  const pending: Array<[unknown, unknown]> = [[plain, built]];
  while (pending.length > 0) {
    const [source, target] = pending.pop() as [unknown, unknown];
    if (source === null || typeof source !== 'object' || target === null || typeof target !== 'object') {
      // A primitive, or a value a transformer turned into another kind: nothing of the request can hide there.
      continue;
    }
    if (Array.isArray(source)) {
      if (Array.isArray(target)) {
        source.forEach((item, index) => pending.push([item, target[index]]));
      }
      continue;
    }
    for (const key of Object.keys(source)) {
      if (!Object.prototype.hasOwnProperty.call(target, key)) {
        return key;
      }
      pending.push([(source as Record<string, unknown>)[key], (target as Record<string, unknown>)[key]]);
    }
  }
  return null;
}

/**
 * Nest's pipe with one more rule: every key of a body or query must reach the DTO, where the whitelist judges it.
 * The check runs on a build of its own before Nest's, because Nest deletes `__proto__` keys from the request data
 * in place before transforming (so afterwards they could not be seen). Cost: a second build of a body of at most
 * `BODY_LIMIT_BYTES`, small next to the validation itself.
 */
export class GatewayValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    if (metatype && this.toValidate(metadata) && value !== null && typeof value === 'object') {
      const built: unknown = plainToInstance(metatype as new () => object, value);
      if (firstUnbuiltKey(value, built) !== null) {
        throw new DomainException(ErrorCode.VALIDATION_FAILED);
      }
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

/** Request bodies, params and queries are validated by their DTOs; any violation is VALIDATION_FAILED. */
export function createValidationPipe(): ValidationPipe {
  return new GatewayValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: () => new DomainException(ErrorCode.VALIDATION_FAILED),
  });
}
