import { ERASED_SCOPE_MIGRATIONS } from '@cp/database';
import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310292846 } from './1795310292846-Init';
import { EmbedOrders1795311403465 } from './1795311403465-EmbedOrders';
import { ExtractResultDetails1795312162119 } from './1795312162119-ExtractResultDetails';
import { OrderReports1795312401959 } from './1795312401959-OrderReports';
import { OrderOptions1795479558202 } from './1795479558202-OrderOptions';
import { OrderTypeResult1795480727223 } from './1795480727223-OrderTypeResult';
import { StuckOrdersIndex1795645036530 } from './1795645036530-StuckOrdersIndex';
import { ExtractResultInTypeResult1795720000000 } from './1795720000000-ExtractResultInTypeResult';
import { OrderTraceparent1796200000002 } from './1796200000002-OrderTraceparent';
import { StartedOrdersIndex1797300000000 } from './1797300000000-StartedOrdersIndex';
import { OrderExpiresIndex1797300000001 } from './1797300000001-OrderExpiresIndex';
import { OrderFailedIndex1797500000000 } from './1797500000000-OrderFailedIndex';
import { OrderErasure1798100000000 } from './1798100000000-OrderErasure';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const ORDERS_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310292846, EmbedOrders1795311403465, ExtractResultDetails1795312162119, OrderReports1795312401959, OrderOptions1795479558202, OrderTypeResult1795480727223, StuckOrdersIndex1795645036530, ExtractResultInTypeResult1795720000000, OrderTraceparent1796200000002, StartedOrdersIndex1797300000000, OrderExpiresIndex1797300000001, OrderFailedIndex1797500000000, ...ERASED_SCOPE_MIGRATIONS, OrderErasure1798100000000];
