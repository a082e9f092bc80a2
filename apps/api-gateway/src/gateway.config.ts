import { CoreConfig, CoreEnv, toCoreConfig, validateEnv } from '@cp/config';
import { IsInt, Matches, Max, Min } from 'class-validator';

export class GatewayEnv extends CoreEnv {
  override PORT: number = 3000;

  /** Base address clients use (test upload URLs are built from it). */
  @Matches(/^https?:\/\/[^/]+$/, { message: 'must be an http(s) origin without a path' })
  PUBLIC_BASE_URL: string = 'http://127.0.0.1:3000';

  @IsInt()
  @Min(1024)
  @Max(50 * 1024 * 1024)
  BODY_LIMIT_BYTES: number = 1024 * 1024;

  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 15_000;
}

export interface GatewayConfig extends CoreConfig {
  publicBaseUrl: string;
  bodyLimitBytes: number;
  rpcTimeoutMs: number;
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const validated = validateEnv(GatewayEnv, env);
  return {
    ...toCoreConfig(validated),
    publicBaseUrl: validated.PUBLIC_BASE_URL,
    bodyLimitBytes: validated.BODY_LIMIT_BYTES,
    rpcTimeoutMs: validated.RPC_TIMEOUT_MS,
  };
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
