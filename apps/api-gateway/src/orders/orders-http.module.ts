import { Module } from '@nestjs/common';
import { OrderReadsService } from './order-reads.service';
import { OrdersController } from './orders.controller';

/** v3 watermark order routes under /api/v3/orders (forwarded to the orders service; reads batched). */
@Module({
  controllers: [OrdersController],
  providers: [OrderReadsService],
})
export class OrdersHttpModule {}
