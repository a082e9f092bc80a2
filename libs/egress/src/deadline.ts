import { EgressError, EgressFailure } from './egress-error';

/**
 * One wall-clock budget for a whole exchange. Whatever is in flight when it passes (the connection, the request,
 * the answer's body) subscribes and is destroyed with a DEADLINE error, so a peer that trickles or stalls cannot
 * keep a caller past it: an idle timeout alone would be reset by every byte.
 */
export class Deadline {
  private readonly timer: NodeJS.Timeout;
  private readonly listeners = new Set<(error: EgressError) => void>();
  private expired: EgressError | undefined;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => {
      this.expired = new EgressError(EgressFailure.DEADLINE, `not done within ${ms} ms`);
      for (const listener of [...this.listeners]) {
        listener(this.expired);
      }
      this.listeners.clear();
    }, ms);
  }

  /** Calls `listener` when the deadline passes (at once if it has); returns the unsubscription. */
  onExpiry(listener: (error: EgressError) => void): () => void {
    if (this.expired) {
      listener(this.expired);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the budget now with `error`: whatever is in flight is destroyed with it, as when the deadline passes. */
  cancel(error: EgressError): void {
    if (this.expired) {
      return;
    }
    clearTimeout(this.timer);
    this.expired = error;
    for (const listener of [...this.listeners]) {
      listener(error);
    }
    this.listeners.clear();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.listeners.clear();
  }
}
