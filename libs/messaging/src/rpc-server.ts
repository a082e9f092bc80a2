import { BatchItemResult, BatchResults, DomainException, ErrorCode, RpcErrorBody } from '@cp/contracts';
import { isDatabaseUnavailableError } from '@cp/database';
import {
  applyDecorators,
  ArgumentMetadata,
  Catch,
  Injectable,
  Logger,
  PipeTransform,
  RpcExceptionFilter,
  UseFilters,
  UsePipes,
} from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Observable, throwError } from 'rxjs';
import { isTransientInfrastructureError } from './event-consumer';

/** Validates request/reply payloads with the same class-validator DTOs as HTTP bodies. */
@Injectable()
export class RpcValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const type = metadata.metatype;
    if (!type || [String, Number, Boolean, Object, Array].includes(type as never)) {
      return value;
    }
    const instance: object = plainToInstance(type as new () => object, value);
    const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, `invalid ${type.name}`);
    }
    return instance;
  }
}

const rpcLogger = new Logger('Rpc');

/**
 * The public code of a failed request: the domain code; WATERMARK_V2_UNAVAILABLE (503 with Retry-After at the
 * gateway) when the service's database or another piece of infrastructure is unavailable, so a database outage
 * or a pool out of connections never reaches clients as a 500; else SERVER_INTERNAL_ERROR (logged, its text kept inside).
 */
function publicCode(exception: unknown): ErrorCode {
  if (exception instanceof DomainException) {
    return exception.code;
  }
  if (isTransientInfrastructureError(exception) || isDatabaseUnavailableError(exception)) {
    rpcLogger.warn({ err: exception }, 'request failed: infrastructure unavailable');
    return ErrorCode.WATERMARK_V2_UNAVAILABLE;
  }
  rpcLogger.error({ err: exception }, 'request failed');
  return ErrorCode.SERVER_INTERNAL_ERROR;
}

/** Sends `{ code }` back to the caller: the domain code, or SERVER_INTERNAL_ERROR without internal text. */
@Catch()
export class RpcDomainExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    const body: RpcErrorBody = { code: publicCode(exception) };
    return throwError(() => body);
  }
}

/** What a batched handler returns for an item the caller should ask for alone (see `answerEach`). */
export const ANSWER_ALONE = Symbol('answer alone');

/**
 * Answers a batched request (`RpcBatcher` on the caller's side): every item is handled on its own and answered
 * with its value or with the code it failed with, exactly as the single request would have been answered; an
 * item handled as `ANSWER_ALONE` is asked for again with the single request (a reply must fit NATS's payload).
 */
export async function answerEach<TItem, TResult>(
  items: TItem[],
  handle: (item: TItem, index: number) => Promise<TResult | typeof ANSWER_ALONE>,
): Promise<BatchResults<TResult>> {
  const results = await Promise.all(
    items.map(async (item, index): Promise<BatchItemResult<TResult>> => {
      try {
        const value = await handle(item, index);
        return value === ANSWER_ALONE ? { ok: false, alone: true } : { ok: true, value };
      } catch (exception) {
        return { ok: false, code: publicCode(exception) };
      }
    }),
  );
  return { results };
}

/** Put on every `@MessagePattern` controller: validated payloads, `{ code }` errors. */
export function RpcHandlers(): ClassDecorator {
  return applyDecorators(UseFilters(new RpcDomainExceptionFilter()), UsePipes(new RpcValidationPipe()));
}
