import { Module } from '@nestjs/common';
import { ReportsController } from './reports.controller';

/** Report routes under /api/v3/orders/{orderId}/reports (forwarded to the reports service). */
@Module({
  controllers: [ReportsController],
})
export class ReportsHttpModule {}
