import { OrderType } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Order } from '../domain/order';
import { OrderTypeDefinition } from './order-type-definition';
import { ORDER_TYPE_FOLDERS } from './order-types';

/** The definitions of the order types this service handles, by type. */
@Injectable()
export class OrderTypeRegistry {
  private definitions?: Map<OrderType, OrderTypeDefinition>;

  constructor(private readonly moduleRef: ModuleRef) {}

  all(): OrderTypeDefinition[] {
    return [...this.byType().values()];
  }

  of(order: Order): OrderTypeDefinition {
    const definition = this.byType().get(order.state.type);
    if (!definition) {
      throw new Error(`order ${order.id} has type ${order.state.type}, which this service does not handle`);
    }
    return definition;
  }

  /** Resolved on first use (every provider exists by then, whatever the order of module initialisation). */
  private byType(): Map<OrderType, OrderTypeDefinition> {
    this.definitions ??= new Map(
      ORDER_TYPE_FOLDERS.map((folder) => {
        const definition = this.moduleRef.get(folder.definition, { strict: false });
        return [definition.type, definition] as const;
      }),
    );
    return this.definitions;
  }
}
