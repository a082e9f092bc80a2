import { CreateExtractOrderCommand, CreateV2ExtractOrderCommand, Rpcs, V2ExtractOrderCreatedView, WatermarkOrderView } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { CreateExtractOrderUseCase } from './create-extract-order.use-case';
import { CreateV2ExtractOrderUseCase } from './create-v2-extract-order.use-case';

/** Creation endpoints of extract orders (v3 and the deprecated v2). */
@RpcHandlers()
@Controller()
export class WatermarkExtractController {
  constructor(
    private readonly createExtract: CreateExtractOrderUseCase,
    private readonly createV2Extract: CreateV2ExtractOrderUseCase,
  ) {}

  @RpcHandler(Rpcs.ordersCreateExtract)
  create(command: CreateExtractOrderCommand): Promise<WatermarkOrderView> {
    return this.createExtract.execute(command);
  }

  @RpcHandler(Rpcs.ordersV2CreateExtract)
  createV2(command: CreateV2ExtractOrderCommand): Promise<V2ExtractOrderCreatedView> {
    return this.createV2Extract.execute(command);
  }
}
