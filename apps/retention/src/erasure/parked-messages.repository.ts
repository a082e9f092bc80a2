import { ErasureScope } from '@cp/contracts';
import { NatsConnectionService, ParkedMessages } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** The PARKED stream (what consumers gave up on), for the later looks at an erased account or order. */
@Injectable()
export class ParkedMessagesRepository {
  constructor(private readonly nats: NatsConnectionService) {}

  /**
   * Discards the parked messages naming the scopes (`ParkedMessages.discardNaming`: not the erasure events), reading
   * PARKED once for all of them; how many named each, in the scopes' order.
   */
  async discardNaming(scopes: readonly ErasureScope[]): Promise<number[]> {
    return (await new ParkedMessages(this.nats.js, this.nats.jsm).discardNaming(scopes)).map((discarded) => discarded.length);
  }
}
