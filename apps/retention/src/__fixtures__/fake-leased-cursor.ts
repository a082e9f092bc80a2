import { Transaction } from '@cp/database';
import { CursorLease } from '../schedule/leased-cursor.repository';

/**
 * A reconciliation's cursor row in memory, as `LeasedCursorRepository`'s statements keep it: one lease at a time,
 * a cursor that only moves forward (by `isAfter`), advanced and released only under the lease that claimed it.
 */
export class FakeLeasedCursor<TCursor> {
  cursor: TCursor | null = null;
  leasedUntil: Date | null = null;
  reconciled = 0;

  constructor(private readonly isAfter: (a: TCursor, b: TCursor) => boolean) {}

  async claim(_tx: Transaction, now: Date, leasedUntil: Date): Promise<CursorLease<TCursor> | null> {
    if (this.leasedUntil && this.leasedUntil > now) {
      return null;
    }
    this.leasedUntil = leasedUntil;
    return { after: this.cursor, leasedUntil };
  }

  async advance(_tx: Transaction, lease: CursorLease<TCursor>, to: TCursor, reconciled: number): Promise<boolean> {
    if (this.leasedUntil?.getTime() !== lease.leasedUntil.getTime() || (this.cursor && !this.isAfter(to, this.cursor))) {
      return false;
    }
    this.cursor = to;
    this.leasedUntil = null;
    this.reconciled += reconciled;
    return true;
  }

  async release(_tx: Transaction, lease: CursorLease<TCursor>): Promise<void> {
    if (this.leasedUntil?.getTime() === lease.leasedUntil.getTime()) {
      this.leasedUntil = null;
    }
  }
}
