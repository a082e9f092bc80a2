import { CreditBalanceEntity } from '../credits/credit-balance.entity';
import { CreditLedgerEntryEntity } from '../credits/credit-ledger-entry.entity';
import { OrderEntity } from '../orders/order.entity';

export const ORDERS_SCHEMA = 'orders';
export const ORDERS_ENTITIES = [OrderEntity, CreditLedgerEntryEntity, CreditBalanceEntity];
