import { Module } from '@nestjs/common';

/** Report routes under /api/v3/orders/{orderId}/reports (forwarded to the reports service). */
@Module({})
export class ReportsHttpModule {}
