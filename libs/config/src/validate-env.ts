// Decorator metadata drives the implicit conversion of variables (class-transformer).
import 'reflect-metadata';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { deadlineVariableErrors } from './deadline-env';

export class ConfigValidationError extends Error {
  constructor(readonly variables: string[], details: string[]) {
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
 * defaults; the error names every variable that is missing or wrong, and never echoes its value. The family of
 * per-consumer deadlines (`JOB_DEADLINE_MS_<DURABLE>`, no property of a class) is checked too: every such variable
 * must name a declared consumer and hold a valid value (`deadlineVariableErrors`).
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
  const deadlines = deadlineVariableErrors(env);
  if (errors.length > 0 || deadlines.variables.length > 0) {
    const { variables, details } = describe(errors);
    throw new ConfigValidationError([...variables, ...deadlines.variables], [...details, ...deadlines.details]);
  }
  return instance;
}
