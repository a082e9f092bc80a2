import { CreateEmbedOrderCommand, CreateV2EmbedOrderCommand, Rpcs, V2EmbedOrderCreatedView, WatermarkOrderView } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { CreateEmbedOrderUseCase } from './create-embed-order.use-case';
import { CreateV2EmbedOrderUseCase } from './create-v2-embed-order.use-case';

/** Creation endpoints of embed orders (v3 and the deprecated v2). */
@RpcHandlers()
@Controller()
export class WatermarkEmbedController {
  constructor(
    private readonly createEmbed: CreateEmbedOrderUseCase,
    private readonly createV2Embed: CreateV2EmbedOrderUseCase,
  ) {}

  @RpcHandler(Rpcs.ordersCreateEmbed)
  create(command: CreateEmbedOrderCommand): Promise<WatermarkOrderView> {
    return this.createEmbed.execute(command);
  }

  @RpcHandler(Rpcs.ordersV2CreateEmbed)
  createV2(command: CreateV2EmbedOrderCommand): Promise<V2EmbedOrderCreatedView> {
    return this.createV2Embed.execute(command);
  }
}
