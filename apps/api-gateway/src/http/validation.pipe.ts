import { DomainException, ErrorCode } from '@cp/contracts';
import { ValidationPipe } from '@nestjs/common';

/** Request bodies, params and queries are validated by their DTOs; any violation is VALIDATION_FAILED. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: () => new DomainException(ErrorCode.VALIDATION_FAILED),
  });
}
