import { CoreConfig, CoreEnv, toCoreConfig, validateEnv } from '@cp/config';

export class WebhooksEnv extends CoreEnv {
  override PORT = 3106;
}

export type WebhooksConfig = CoreConfig;

export function loadWebhooksConfig(source: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  const env = validateEnv(WebhooksEnv, source);
  return toCoreConfig(env);
}
