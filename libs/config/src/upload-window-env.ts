import { EnvClass, withPrefixedEnv, WithVariables } from './prefixed-env';

export type UploadWindowEnv = Record<'UPLOAD_WINDOW_HOURS', number>;

/**
 * `UPLOAD_WINDOW_HOURS` (1 to 8760, default 12, spec 3.1): a pending order whose files have not all arrived this
 * long after its creation fails with ORDER_TIMEOUT. Orders applies the rule; the uploads service reads the same
 * variable to stop checking the slots of orders past it against storage. One declaration, so both read it the same
 * way; a deployment sets it once in the shared configuration (Helm `config`), never per service.
 */
export function withUploadWindowEnv<TBase extends EnvClass>(Base: TBase): WithVariables<TBase, UploadWindowEnv> {
  // `UPLOAD` + `WINDOW_HOURS`: the group mechanism with a group of one.
  return withPrefixedEnv<TBase, UploadWindowEnv>(Base, 'UPLOAD', [{ suffix: 'WINDOW_HOURS', kind: 'int', min: 1, max: 24 * 365, default: 12 }]);
}

export function toUploadWindowMs(env: UploadWindowEnv): number {
  return env.UPLOAD_WINDOW_HOURS * 3600_000;
}
