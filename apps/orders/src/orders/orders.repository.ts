import { KeyMode } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { OrderReportEntity } from '../reports/order-report.entity';
import { OrderFileEntity } from './order-file.entity';
import { OrderOutputEntity } from './order-output.entity';
import { OrderEntity } from './order.entity';

export interface OrderAggregate {
  order: OrderEntity;
  files: OrderFileEntity[];
  outputs: OrderOutputEntity[];
  reports: OrderReportEntity[];
}

/** TypeORM access to orders, their files and outputs. */
@Injectable()
export class OrdersRepository {
  constructor(@Inject(DataSource) readonly dataSource: DataSource) {}

  async findOwned(orderId: string, accountId: string, mode: KeyMode, manager: EntityManager = this.dataSource.manager): Promise<OrderAggregate | null> {
    const order = await manager.findOneBy(OrderEntity, { id: orderId, accountId, mode });
    return order ? this.withChildren(order, manager) : null;
  }

  /** Loads and row-locks an order for a state change. */
  async lock(manager: EntityManager, orderId: string): Promise<OrderAggregate | null> {
    const order = await manager.findOne(OrderEntity, { where: { id: orderId }, lock: { mode: 'pessimistic_write' } });
    return order ? this.withChildren(order, manager) : null;
  }

  async withChildren(order: OrderEntity, manager: EntityManager): Promise<OrderAggregate> {
    const [files, outputs, reports] = await Promise.all([
      manager.find(OrderFileEntity, { where: { orderId: order.id }, order: { position: 'ASC' } }),
      manager.find(OrderOutputEntity, { where: { orderId: order.id }, order: { inputPosition: 'ASC', outputIndex: 'ASC' } }),
      manager.find(OrderReportEntity, { where: { orderId: order.id }, order: { locale: 'ASC' } }),
    ]);
    return { order, files, outputs, reports };
  }
}
