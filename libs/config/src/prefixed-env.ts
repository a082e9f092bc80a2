import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toBoolean } from './core-env';
import { IsIpList } from './ip-list';

/** One variable of a group that several services have under their own prefix (`<PREFIX>_<suffix>`). */
export type PrefixedVariable =
  | { suffix: string; kind: 'int'; min: number; max?: number; default: number }
  | { suffix: string; kind: 'boolean'; default: boolean }
  /** A comma-separated list of IP addresses (`IsIpList`), empty by default. */
  | { suffix: string; kind: 'ipList' }
  /** An optional string without default. */
  | { suffix: string; kind: 'optionalString' };

// A mixin's base must be constructible with any arguments: TypeScript accepts only `any[]` there (TS2545).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EnvClass = new (...args: any[]) => object;

/** The class `withPrefixedEnv` returns: the base's instances with the group's variables. */
export type WithVariables<TBase extends EnvClass, TVariables> = new (...args: ConstructorParameters<TBase>) => InstanceType<TBase> & TVariables;

function defaultOf(variable: PrefixedVariable): unknown {
  switch (variable.kind) {
    case 'int':
    case 'boolean':
      return variable.default;
    case 'ipList':
      return '';
    case 'optionalString':
      return undefined;
  }
}

/** What the decorators on a written-out property do: convert the string, then check it. */
function decorate(prototype: object, name: string, variable: PrefixedVariable): void {
  switch (variable.kind) {
    case 'int':
      Type(() => Number)(prototype, name);
      IsInt()(prototype, name);
      Min(variable.min)(prototype, name);
      if (variable.max !== undefined) Max(variable.max)(prototype, name);
      return;
    case 'boolean':
      Transform(toBoolean)(prototype, name);
      IsBoolean()(prototype, name);
      return;
    case 'ipList':
      IsIpList()(prototype, name);
      return;
    case 'optionalString':
      IsOptional()(prototype, name);
      IsString()(prototype, name);
      return;
  }
}

/**
 * Adds a group of variables under `prefix` to an environment class, with the same checks and defaults in every
 * service that has the group; `validateEnv` then reads them like written-out properties. The groups are declared
 * beside it (`withWorkerEnv`, `withOutboundEnv`).
 */
export function withPrefixedEnv<TBase extends EnvClass, TVariables>(Base: TBase, prefix: string, variables: readonly PrefixedVariable[]): WithVariables<TBase, TVariables> {
  class PrefixedEnv extends Base {
    // The mixin constructor TypeScript requires (TS2545); environment classes take no arguments anyway.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    constructor(...args: any[]) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
      super(...args);
      // The defaults; validateEnv then sets what the environment gives.
      for (const variable of variables) {
        const value = defaultOf(variable);
        if (value !== undefined) Object.assign(this, { [`${prefix}_${variable.suffix}`]: value });
      }
    }
  }
  for (const variable of variables) {
    decorate(PrefixedEnv.prototype, `${prefix}_${variable.suffix}`, variable);
  }
  return PrefixedEnv as unknown as WithVariables<TBase, TVariables>;
}
