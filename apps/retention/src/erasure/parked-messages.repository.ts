import { ErasureScope } from '@cp/contracts';
import { NatsConnectionService, ParkedMessages } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** The PARKED stream (what consumers gave up on), for the later looks at an erased account or order. */
@Injectable()
export class ParkedMessagesRepository {
  constructor(private readonly nats: NatsConnectionService) {}

  /** Discards the parked messages naming the scope (`ParkedMessages.discardNaming`: not the erasure events); how many. */
  async discardNaming(scope: ErasureScope): Promise<number> {
    return (await new ParkedMessages(this.nats.js, this.nats.jsm).discardNaming(scope)).length;
  }
}
