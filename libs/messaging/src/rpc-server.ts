import { BatchItemResult, BatchResults, DomainException, ErrorCode, firstUnbuiltKey, RpcContract, RpcErrorBody } from '@cp/contracts';
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
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { recordSpanError, trace } from '@cp/tracing';
import { isTransientInfrastructureError } from './event-consumer';
import { messagingMetrics } from './messaging-metrics';

/** Validates request/reply payloads with the same class-validator DTOs as HTTP bodies. */
@Injectable()
export class RpcValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const type = metadata.metatype;
    if (!type || [String, Number, Boolean, Object, Array].includes(type as never)) {
      return value;
    }
    const instance: object = plainToInstance(type as new () => object, value);
    // a key class-transformer dropped (`__proto__`, `toString`…) never reaches the whitelist: refused here, as at the gateway
    if (firstUnbuiltKey(value, instance) !== null || validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }).length > 0) {
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
    const retryAfterSeconds = exception instanceof DomainException ? exception.retryAfterSeconds : undefined;
    const body: RpcErrorBody = { code: publicCode(exception), ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
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

/** Put on every controller of `@RpcHandler` methods: validated payloads, `{ code }` errors. */
export function RpcHandlers(): ClassDecorator {
  return applyDecorators(UseFilters(new RpcDomainExceptionFilter()), UsePipes(new RpcValidationPipe()));
}

/**
 * Serves a declared request (`Rpcs.*` of `@cp/contracts`) with the decorated method: the compiler checks the
 * method against the declaration (it takes the request class, or nothing, and resolves to the response type), so
 * a payload or view change that compiles on the sending side (`RpcClient.request`) cannot fail on this one at run
 * time. The method's first parameter is the payload (no `@Payload()` needed).
 *
 * Validation stays the controller's `RpcValidationPipe` (`@RpcHandlers()`), which validates against the
 * parameter's declared class; that class must be the declaration's request class itself, checked here when the
 * class is defined: the compiler alone would accept a structurally compatible class (or `object`), which the
 * pipe would then validate with the wrong rules.
 */
export function RpcHandler<TRequest extends object, TResponse>(contract: RpcContract<TRequest, TResponse>) {
  return <THandler extends (payload: TRequest) => Promise<TResponse>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<THandler>,
  ): void => {
    const parameterTypes = Reflect.getMetadata('design:paramtypes', target, key) as unknown[] | undefined;
    if (parameterTypes === undefined) {
      throw new Error(`@RpcHandler(${contract.pattern}) on ${String(key)}: no decorator metadata (emitDecoratorMetadata is off)`);
    }
    if (parameterTypes.length > 0) {
      if (parameterTypes[0] !== contract.request) {
        const declared = (parameterTypes[0] as { name?: string } | undefined)?.name ?? String(parameterTypes[0]);
        throw new Error(`@RpcHandler(${contract.pattern}) on ${String(key)}: the payload parameter is ${declared}, the declaration's request is ${contract.request.name}`);
      }
      Payload()(target, key, 0);
    }
    measure(contract.pattern, descriptor);
    MessagePattern(contract.pattern)(target, key, descriptor);
  };
}

/**
 * Replaces the handler by one that records its duration and outcome (`rpc_server_duration_seconds`), keeping the
 * metadata earlier decorators put on the method. A plain wrapper, not a Nest interceptor: interceptors put rxjs
 * on every call (see the gateway's hot path in docs/architecture.md). Payloads the validation pipe refuses never
 * reach it.
 */
function measure<THandler extends (payload: never) => Promise<unknown>>(subject: string, descriptor: TypedPropertyDescriptor<THandler>): void {
  const original = descriptor.value;
  if (!original) {
    return;
  }
  const measured = async function (this: unknown, ...args: Parameters<THandler>): Promise<unknown> {
    const stop = messagingMetrics.rpcDuration.startTimer({ subject });
    try {
      const result = await original.apply(this, args);
      stop({ outcome: 'ok' });
      return result;
    } catch (error) {
      stop({ outcome: error instanceof DomainException ? 'rejected' : 'failed' });
      // The server span (started by the service's NATS server when tracing is on) records the public code.
      const span = trace.getActiveSpan();
      if (span) {
        recordSpanError(span, error);
      }
      throw error;
    }
  };
  for (const metadataKey of Reflect.getMetadataKeys(original) as unknown[]) {
    Reflect.defineMetadata(metadataKey, Reflect.getMetadata(metadataKey, original), measured);
  }
  Object.defineProperty(measured, 'name', { value: original.name });
  descriptor.value = measured as unknown as THandler;
}
