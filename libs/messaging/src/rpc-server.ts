import { DomainException, ErrorCode, RpcErrorBody } from '@cp/contracts';
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

/** Sends `{ code }` back to the caller: the domain code, or SERVER_INTERNAL_ERROR without internal text. */
@Catch()
export class RpcDomainExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('Rpc');

  catch(exception: unknown): Observable<never> {
    if (exception instanceof DomainException) {
      const body: RpcErrorBody = { code: exception.code };
      return throwError(() => body);
    }
    this.logger.error({ err: exception }, 'request failed');
    const body: RpcErrorBody = { code: ErrorCode.SERVER_INTERNAL_ERROR };
    return throwError(() => body);
  }
}

/** Put on every `@MessagePattern` controller: validated payloads, `{ code }` errors. */
export function RpcHandlers(): ClassDecorator {
  return applyDecorators(UseFilters(new RpcDomainExceptionFilter()), UsePipes(new RpcValidationPipe()));
}
