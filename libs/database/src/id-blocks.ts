import { DataSource } from 'typeorm';

/** A table whose `id` sequence hands out ids, and how many to take from it at a time. */
export interface IdSequence {
  /** The table, as `tableSql` writes it. */
  table: string;
  block: number;
}

/**
 * Ids of tables' `id` sequences taken a block at a time, so that a hot creation does not spend a round trip
 * on them (issue 19: order creation then writes in one statement). Blocks of all short sequences come in one
 * statement; concurrent takers wait for the same one.
 * What it gives up: ids are unique but no longer in creation order across processes (each process hands out
 * its own block, like a sequence's CACHE), and a process that stops leaves the rest of its blocks unused.
 */
export class IdBlocks<K extends string> {
  /** Unused ids of each sequence, ascending. */
  private readonly pools: Record<K, string[]>;
  private refill: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sequences: Record<K, IdSequence>,
  ) {
    this.pools = Object.fromEntries(Object.keys(sequences).map((key) => [key, [] as string[]])) as Record<K, string[]>;
  }

  /** `counts[key]` unused ids of each sequence, ascending. */
  async take(counts: Record<K, number>): Promise<Record<K, string[]>> {
    const keys = Object.keys(counts) as K[];
    while (keys.some((key) => this.pools[key].length < counts[key])) {
      this.refill ??= this.fill(counts).finally(() => {
        this.refill = undefined;
      });
      await this.refill;
    }
    return Object.fromEntries(keys.map((key) => [key, this.pools[key].splice(0, counts[key])])) as Record<K, string[]>;
  }

  private async fill(counts: Record<K, number>): Promise<void> {
    const short = (Object.keys(counts) as K[]).filter((key) => this.pools[key].length < counts[key]);
    const values: unknown[] = [];
    const columns = short.map((key, index) => {
      values.push(this.sequences[key].table, Math.max(this.sequences[key].block, counts[key] - this.pools[key].length));
      return `ARRAY(SELECT nextval(pg_get_serial_sequence($${2 * index + 1}, 'id'))::text FROM generate_series(1, $${2 * index + 2}::int)) AS "c${index}"`;
    });
    const [row] = await this.dataSource.query<Array<Record<string, string[]>>>(`SELECT ${columns.join(', ')}`, values);
    short.forEach((key, index) => this.pools[key].push(...row[`c${index}`]));
  }
}
