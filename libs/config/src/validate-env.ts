// Decorator metadata drives the implicit conversion of variables (class-transformer).
import 'reflect-metadata';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';

export class ConfigValidationError extends Error {
  /** One `VARIABLE: what is wrong` each (never a value), so checks made elsewhere can add theirs to one error. */
  constructor(readonly variables: string[], readonly details: string[]) {
    super(`Invalid configuration: ${details.join('; ')}`);
    this.name = 'ConfigValidationError';
  }
}

function describe(errors: ValidationError[]): { variables: string[]; details: string[] } {
  const variables = errors.map((error) => error.property);
  const details = errors.map(
    (error) => `${error.property}: ${Object.values(error.constraints ?? {}).join(', ') || 'invalid'}`,
  );
  return { variables, details };
}

/**
 * Validates the environment against a class-validator schema at boot. Property initialisers are the
 * defaults; the error names every variable that is missing or wrong, and never echoes its value.
 */
export function validateEnv<T extends object>(
  schema: ClassConstructor<T>,
  env: NodeJS.ProcessEnv = process.env,
): T {
  // Blank is unset (a default applies): implicit conversion would otherwise read a blank number as 0, e.g. METRICS_PORT
  // " " as metrics off or DATABASE_STATEMENT_TIMEOUT_MS " " as no timeout.
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const instance = plainToInstance(schema, defined, {
    enableImplicitConversion: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(instance, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) {
    const { variables, details } = describe(errors);
    throw new ConfigValidationError(variables, details);
  }
  return instance;
}
