import { CreditGrantQuery, CreditGrantView, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { CreditGrantStatusUseCase } from './credit-grant-status.use-case';

/** `orders.credit-grant`: the admin CLI's wait after `account create` and `credits add`. */
@RpcHandlers()
@Controller()
export class CreditGrantRpcController {
  constructor(private readonly status: CreditGrantStatusUseCase) {}

  @RpcHandler(Rpcs.ordersCreditGrant)
  get(query: CreditGrantQuery): Promise<CreditGrantView> {
    return this.status.execute(query);
  }
}
