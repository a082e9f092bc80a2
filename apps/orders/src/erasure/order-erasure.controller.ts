import { EraseOrderCommand, OrderErasureView, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { EraseOrderUseCase } from './erase-order.use-case';

/** `orders.erase-order`: the admin CLI's `order erase`; not reachable from the public API. */
@RpcHandlers()
@Controller()
export class OrderErasureRpcController {
  constructor(private readonly erase: EraseOrderUseCase) {}

  @RpcHandler(Rpcs.ordersEraseOrder)
  execute(command: EraseOrderCommand): Promise<OrderErasureView> {
    return this.erase.execute(command);
  }
}
