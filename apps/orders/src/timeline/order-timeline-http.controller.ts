import { DomainException, ErrorCode, ORDER_ID_PATTERN, OrderTimelineView } from '@cp/contracts';
import { BadRequestException, Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { OrderTimelineUseCase } from './order-timeline.use-case';

/**
 * The order timeline for operators over HTTP, on the orders service's own port (inside the cluster, beside
 * /health and /ready), never on the public gateway: `GET /internal/orders/{orderId}/timeline`.
 */
@Controller('internal/orders')
export class OrderTimelineHttpController {
  constructor(private readonly timeline: OrderTimelineUseCase) {}

  @Get(':orderId/timeline')
  async get(@Param('orderId') orderId: string): Promise<OrderTimelineView> {
    if (!ORDER_ID_PATTERN.test(orderId)) {
      throw new BadRequestException({ code: ErrorCode.VALIDATION_FAILED });
    }
    try {
      return await this.timeline.execute({ orderId });
    } catch (error) {
      if (error instanceof DomainException && error.code === ErrorCode.RESOURCE_NOT_FOUND) {
        throw new NotFoundException({ code: error.code });
      }
      throw error;
    }
  }
}
