import { RpcContract } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';

/** A page of orders after a walk's cursor, read from their owner (`ReconcileWithOrdersUseCase`). */
export abstract class OrdersPagePort<TQuery, TPage> {
  abstract page(query: TQuery): Promise<TPage>;
}

/**
 * The page over RPC. Orders answers with one indexed statement; 30 s is well within the lease the page is read under
 * (RETENTION_LEASE_SECONDS ≥ 70), so a late answer never comes after the lease ran out.
 */
export abstract class OrdersPageClient<TQuery extends object, TPage> extends OrdersPagePort<TQuery, TPage> {
  protected constructor(
    private readonly rpc: RpcClient,
    private readonly contract: RpcContract<TQuery, TPage>,
  ) {
    super();
  }

  page(query: TQuery): Promise<TPage> {
    return this.rpc.request(this.contract, query, 30_000);
  }
}
