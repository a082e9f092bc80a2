import { ErasedScopeEntity } from '@cp/database';
import { CreditBalanceEntity } from '../credits/credit-balance.entity';
import { CreditLedgerEntryEntity } from '../credits/credit-ledger-entry.entity';
import { OrderErasureEntity } from '../erasure/order-erasure.entity';
import { IdempotencyRecordEntity } from '../orders/idempotency-record.entity';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderEntity } from '../orders/order.entity';
import { OrderReportEntity } from '../orders/order-report.entity';

export const ORDERS_SCHEMA = 'orders';
export const ORDERS_ENTITIES = [
  OrderEntity,
  OrderFileEntity,
  OrderOutputEntity,
  OrderReportEntity,
  IdempotencyRecordEntity,
  CreditLedgerEntryEntity,
  CreditBalanceEntity,
  ErasedScopeEntity,
  OrderErasureEntity,
];
