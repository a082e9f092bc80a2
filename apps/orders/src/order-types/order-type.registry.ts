import { OrderType } from '@cp/contracts';
import { Inject, Injectable, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Order } from '../domain/order';
import { ORDER_TYPE_DEFINITIONS, OrderTypeDefinition } from './order-type-definition';

/** The definitions of the order types this service handles, by type. */
@Injectable()
export class OrderTypeRegistry {
  private definitions?: Map<OrderType, OrderTypeDefinition>;

  constructor(
    private readonly moduleRef: ModuleRef,
    // Injected, not imported: type folders' use cases depend on services that depend on this registry.
    @Inject(ORDER_TYPE_DEFINITIONS) private readonly definitionTypes: ReadonlyArray<Type<OrderTypeDefinition>>,
  ) {}

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
      this.definitionTypes.map((definitionType) => {
        const definition = this.moduleRef.get(definitionType, { strict: false });
        return [definition.type, definition] as const;
      }),
    );
    return this.definitions;
  }
}
