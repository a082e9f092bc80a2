import { Module } from '@nestjs/common';
import { OrdersRpcController } from './orders.controller';
import { OrdersQueryService } from './orders-query.service';

@Module({
  controllers: [OrdersRpcController],
  providers: [OrdersQueryService],
})
export class OrdersModule {}
