import { Clock } from '@cp/clock';
import {
  DomainException,
  ErrorCode,
  V2OrderDetailView,
  V2OrderQuery,
  V2RecentStatsQuery,
  V2RecentStatsView,
} from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from '../orders/object-urls.service';
import { OrderAccessService } from '../orders/order-access.service';
import { OrdersRepository } from '../orders/orders.repository';
import { KeyModesService } from '../sandbox/key-modes.service';
import { toV2OrderDetailView } from './v2-view.mapper';
import { chartScale } from './chart-scale';

const DAY_MS = 24 * 3600_000;
const STATS_DAYS = 7;

/** The deprecated v2 reads: order detail (spec 2.7, 4.11) and the 7-day usage chart (4.13). */
@Injectable()
export class V2OrdersQueryService {
  constructor(
    private readonly repository: OrdersRepository,
    private readonly access: OrderAccessService,
    private readonly types: OrderTypeRegistry,
    private readonly modes: KeyModesService,
    private readonly urls: ObjectUrlsService,
    private readonly clock: Clock,
  ) {}

  async detail(query: V2OrderQuery): Promise<V2OrderDetailView> {
    const order = await this.access.owned(query.caller, query.orderId);
    const type = this.types.of(order);
    const input = this.modes.of(order).storedInput(order);
    const urls = await this.urls.for(order, [...(input ? [input] : []), ...type.linkedObjects(order)]);
    return toV2OrderDetailView(order, urls.of(input), type.v2Detail(order, urls));
  }

  /**
   * Orders created per UTC day by the caller's account (key mode), over the 7 days ending on `date`
   * (default today); `domain` and `ticks` are a ready-made y axis for the chart.
   */
  async recentStats(query: V2RecentStatsQuery): Promise<V2RecentStatsView> {
    const reference = query.date ? new Date(`${query.date}T00:00:00.000Z`) : this.clock.now();
    if (Number.isNaN(reference.getTime())) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, `invalid date ${query.date ?? ''}`);
    }
    // The day's start by arithmetic: Date.UTC reads the years 0–99 as 1900–1999 (0099-03-01 gave a week of 1999).
    const lastDay = Math.floor(reference.getTime() / DAY_MS) * DAY_MS;
    const from = new Date(lastDay - (STATS_DAYS - 1) * DAY_MS);
    // A week reaching into the year −1 has days YYYY-MM-DD cannot write (toISOString gives "-000001-12-26").
    if (from.getUTCFullYear() < 0) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, `the 7 days ending on ${query.date ?? ''} start before the year 0000`);
    }
    const to = new Date(lastDay + DAY_MS);
    const counts = await this.repository.countCreatedPerDay(query.caller.accountId, query.caller.mode, from, to);
    const dailyStats = Array.from({ length: STATS_DAYS }, (_, index) => {
      const usageDate = new Date(from.getTime() + index * DAY_MS).toISOString().slice(0, 10);
      return { usageDate, usageCount: counts.get(usageDate) ?? 0 };
    });
    return { dailyStats, ...chartScale(Math.max(0, ...dailyStats.map((day) => day.usageCount))) };
  }
}
