import { DetectionStatus, ExtractResultView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrderAggregate } from '../orders/orders.repository';

/** Spec 3.1/4.2: unsupported and error results complete the order and refund its credit. */
const REFUNDED: ReadonlySet<DetectionStatus> = new Set(['unsupported', 'error']);

@Injectable()
export class ExtractResults {
  constructor(private readonly lifecycle: OrderLifecycle) {}

  async record(manager: EntityManager, aggregate: OrderAggregate, outcome: ExtractResultView & { confidence: number; method: string }): Promise<void> {
    const { order } = aggregate;
    order.result = { detectionStatus: outcome.detectionStatus, reportSupported: outcome.reportSupported, watermarkText: outcome.watermarkText };
    order.resultDetails = { confidence: outcome.confidence, method: outcome.method };
    if (REFUNDED.has(outcome.detectionStatus)) {
      await this.lifecycle.restoreCredits(manager, order, `extract ${outcome.detectionStatus}`);
    }
    const found = outcome.detectionStatus === 'detected';
    await this.lifecycle.complete(manager, aggregate, {
      extract: { statusCode: found ? 'detected' : 'undetected', watermarkFound: found, watermarkText: found ? outcome.watermarkText : null },
    });
  }
}
