import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';

/** Why a relay got no slot: too many downloads of that file, or of any file, on this replica. */
export type RelayBusy = 'object-busy' | 'replica-busy';

/**
 * Concurrent result relays of this replica, in total and per result file (its bucket and key, whatever the
 * presigned query). The route is public (the presigned query authorises it) and each relay holds an upstream
 * storage connection for as long as its client reads, up to 15 minutes: without a cap, slow readers of one
 * leaked link could hold every connection. A slot is taken before storage is contacted and given back once.
 */
@Injectable()
export class RelaySlots {
  private total = 0;
  private readonly perObject = new Map<string, number>();

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'results'>) {}

  /** A function that gives the slot back (idempotent), or why there is none. */
  take(objectPath: string): (() => void) | RelayBusy {
    const { maxConcurrent, maxPerObject } = this.config.results;
    const ofObject = this.perObject.get(objectPath) ?? 0;
    if (ofObject >= maxPerObject) {
      return 'object-busy';
    }
    if (this.total >= maxConcurrent) {
      return 'replica-busy';
    }
    this.total += 1;
    this.perObject.set(objectPath, ofObject + 1);
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      this.total -= 1;
      const left = (this.perObject.get(objectPath) ?? 1) - 1;
      if (left > 0) {
        this.perObject.set(objectPath, left);
      } else {
        this.perObject.delete(objectPath);
      }
    };
  }

  get inUse(): number {
    return this.total;
  }
}
