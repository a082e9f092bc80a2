import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { KeyModeStrategy, LiveMode, SandboxMode } from './key-mode.strategy';
import { SampleFiles } from './sample-files';

/** The strategy of an order's key mode (live or test/sandbox): the only place that looks at `mode`. */
@Injectable()
export class KeyModesService {
  private readonly strategies: Readonly<Record<KeyModeStrategy['mode'], KeyModeStrategy>>;

  constructor(storage: ObjectStorage, samples: SampleFiles) {
    this.strategies = { live: new LiveMode(storage), test: new SandboxMode(samples) };
  }

  of(order: Order): KeyModeStrategy {
    return this.strategies[order.state.mode];
  }
}
