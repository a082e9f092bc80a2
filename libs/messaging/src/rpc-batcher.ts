import { BatchResults, DomainException, RpcContract } from '@cp/contracts';
import { RpcClient } from './rpc-client';

interface Waiting<TItem, TResult> {
  item: TItem;
  resolve: (value: TResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces the requests one process makes at about the same time into one batched request/reply (issue 19):
 * everything asked during one turn of the event loop (the HTTP requests of one poll phase) leaves as a single
 * NATS message after it (`setImmediate`), so the server pays one message, one statement and one reply for all
 * of them. Nothing waits for a timer: a lone request leaves at the end of its own turn. Each caller gets its
 * own item's answer, or a DomainException with the code that item failed with; an item the server answers
 * `alone` (its answer would have made the reply too large) is asked for again with the single request.
 */
export class RpcBatcher<TItem extends object, TResult> {
  private queue: Array<Waiting<TItem, TResult>> = [];
  private scheduled = false;

  /** `single`: the request of one item, for the items the server answers `alone`. */
  constructor(
    private readonly rpc: RpcClient,
    private readonly contract: RpcContract<{ items: TItem[] }, BatchResults<TResult>>,
    private readonly single: RpcContract<TItem, TResult>,
    private readonly maxItems: number,
  ) {}

  request(item: TItem): Promise<TResult> {
    return new Promise<TResult>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.maxItems) {
        this.flush();
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    const batch = this.queue;
    if (batch.length === 0) {
      return;
    }
    this.queue = [];
    this.rpc.request(this.contract, { items: batch.map((waiting) => waiting.item) }).then(
      ({ results }) => {
        if (!Array.isArray(results) || results.length !== batch.length) {
          const error = new Error(`${this.contract.pattern} answered ${Array.isArray(results) ? results.length : 'no'} results for ${batch.length} items`);
          batch.forEach((waiting) => waiting.reject(error));
          return;
        }
        batch.forEach((waiting, index) => {
          const result = results[index];
          if (result.ok) {
            waiting.resolve(result.value);
          } else if ('alone' in result) {
            this.rpc.request(this.single, waiting.item).then(waiting.resolve, waiting.reject);
          } else {
            waiting.reject(new DomainException(result.code, `${this.contract.pattern} answered ${result.code}`));
          }
        });
      },
      // The whole batch failed (unavailable, timeout, a fault): every caller gets what a single request would have.
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  }
}
