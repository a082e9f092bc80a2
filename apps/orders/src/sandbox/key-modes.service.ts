import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { KeyModeStrategy, LiveMode, SandboxMode } from './key-mode.strategy';

/** The strategy of an order's key mode (live or test/sandbox). */
@Injectable()
export class KeyModesService {
  private readonly live = new LiveMode();
  private readonly sandbox = new SandboxMode();

  of(order: Order): KeyModeStrategy {
    return order.state.mode === 'test' ? this.sandbox : this.live;
  }
}
