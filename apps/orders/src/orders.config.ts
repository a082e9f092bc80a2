import { CoreConfig, CoreEnv, toCoreConfig, validateEnv } from '@cp/config';

export class OrdersEnv extends CoreEnv {
  override PORT = 3101;
}

export type OrdersConfig = CoreConfig;

export function loadOrdersConfig(env: NodeJS.ProcessEnv = process.env): OrdersConfig {
  return toCoreConfig(validateEnv(OrdersEnv, env));
}
