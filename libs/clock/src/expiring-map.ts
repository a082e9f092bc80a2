import { Clock } from './clock';

interface Slot<V> {
  value: V;
  untilMs: number;
}

/**
 * A map whose entries end at a time of the given clock and whose size is bounded: storing past the bound drops the
 * entry stored longest ago (storing a key again makes it the newest). For in-process memories keyed by what a
 * caller sends (API key digests, upload tokens), so no caller can grow them, and tests move time with a
 * `ManualClock` instead of sleeping. An expired entry is dropped when it is read or pushed out, never by a timer.
 */
export class ExpiringMap<K, V> {
  private readonly slots = new Map<K, Slot<V>>();

  /** @param onDrop told of each entry the bound pushes out, so a caller can keep an index of its own in step. */
  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
    private readonly onDrop: (key: K, value: V) => void = () => undefined,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`ExpiringMap needs a bound of at least 1 entry, not ${maxEntries}`);
    }
  }

  /** The value stored for `key` if it has not ended yet. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) {
      return undefined;
    }
    if (slot.untilMs <= this.clock.nowMs()) {
      this.slots.delete(key);
      return undefined;
    }
    return slot.value;
  }

  /** Stores `value` until `ttlMs` from now, as the newest entry. */
  set(key: K, value: V, ttlMs: number): void {
    this.slots.delete(key);
    this.slots.set(key, { value, untilMs: this.clock.nowMs() + ttlMs });
    if (this.slots.size > this.maxEntries) {
      // A Map iterates in insertion order, and every store re-inserts: the first key is the one stored longest ago.
      const [oldestKey, oldest] = this.slots.entries().next().value as [K, Slot<V>];
      this.slots.delete(oldestKey);
      this.onDrop(oldestKey, oldest.value);
    }
  }

  delete(key: K): void {
    this.slots.delete(key);
  }

  clear(): void {
    this.slots.clear();
  }

  /** Entries held, ended ones included until they are read or pushed out. */
  get size(): number {
    return this.slots.size;
  }
}
