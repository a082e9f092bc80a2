import { ipList } from './ip-list';
import { EnvClass, withPrefixedEnv, WithVariables } from './prefixed-env';

/** Limits of requests to destinations that come from input (`@cp/egress`): source downloads, anti-AI zero-copy PUTs. */
export interface OutboundSettings {
  /** Largest body sent or received, in bytes. */
  maxBytes: number;
  /** Wall-clock budget of one exchange (connect, request, answer, body). */
  deadlineMs: number;
  /** Test only: private addresses may be reached (refused in production). */
  allowPrivate: boolean;
  /** Test only: private IPs that may be reached, e.g. a local test stack's server (refused in production). */
  allowedIps: string[];
  /** An extra CA certificate (PEM file) trusted for these destinations, e.g. a local test server's. */
  extraCaFile?: string;
}

export type OutboundEnvOf<P extends string> = Record<`${P}_MAX_BYTES` | `${P}_DEADLINE_MS`, number> &
  Record<`${P}_ALLOW_PRIVATE`, boolean> &
  Record<`${P}_ALLOWED_IPS`, string> &
  Partial<Record<`${P}_EXTRA_CA_FILE`, string>>;

/**
 * `<PREFIX>_MAX_BYTES` (at least 1 KiB), `_DEADLINE_MS` (1 s to `maxDeadlineMs`, default 120 s), `_ALLOW_PRIVATE`
 * (default false), `_ALLOWED_IPS` (default empty) and `_EXTRA_CA_FILE` (optional) of one kind of outbound request.
 */
export function withOutboundEnv<TBase extends EnvClass, P extends string>(
  Base: TBase,
  prefix: P,
  limits: { defaultMaxBytes: number; maxDeadlineMs: number },
): WithVariables<TBase, OutboundEnvOf<P>> {
  return withPrefixedEnv<TBase, OutboundEnvOf<P>>(Base, prefix, [
    { suffix: 'MAX_BYTES', kind: 'int', min: 1024, default: limits.defaultMaxBytes },
    { suffix: 'DEADLINE_MS', kind: 'int', min: 1000, max: limits.maxDeadlineMs, default: 120_000 },
    { suffix: 'ALLOW_PRIVATE', kind: 'boolean', default: false },
    { suffix: 'ALLOWED_IPS', kind: 'ipList' },
    { suffix: 'EXTRA_CA_FILE', kind: 'optionalString' },
  ]);
}

export function toOutboundSettings<P extends string>(env: OutboundEnvOf<P>, prefix: P): OutboundSettings {
  const values = env as unknown as Record<string, unknown>;
  const read = <T>(suffix: string): T => values[`${prefix}_${suffix}`] as T;
  return {
    maxBytes: read<number>('MAX_BYTES'),
    deadlineMs: read<number>('DEADLINE_MS'),
    allowPrivate: read<boolean>('ALLOW_PRIVATE'),
    allowedIps: ipList(read<string>('ALLOWED_IPS')),
    extraCaFile: read<string | undefined>('EXTRA_CA_FILE'),
  };
}

/** The variables of the group that are set to test-only values, which production refuses. */
export function testOnlyOutboundVariables<P extends string>(env: OutboundEnvOf<P>, prefix: P): string[] {
  const settings = toOutboundSettings(env, prefix);
  return [...(settings.allowPrivate ? [`${prefix}_ALLOW_PRIVATE`] : []), ...(settings.allowedIps.length > 0 ? [`${prefix}_ALLOWED_IPS`] : [])];
}
