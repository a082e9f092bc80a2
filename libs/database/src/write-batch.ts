import { EntityManager } from 'typeorm';

/**
 * Writes of several repositories sent as one statement (data-modifying CTEs), so a transaction that writes to
 * seven tables costs one round trip instead of seven (issue 19: on this VM each statement is a socket write and
 * a parse/plan in PostgreSQL, the larger part of an order creation's CPU). Every part runs exactly once, whether
 * or not another part reads it, and all of them see the same snapshot: a part can read what an earlier part
 * returned (`RETURNING`), never a row it wrote through the table. A repository adds its own SQL with `write`;
 * `require` turns "this condition is false after the writes" into the repository's own exception, which
 * rolls back the caller's transaction.
 */
export class WriteBatch {
  private readonly parts: string[] = [];
  private readonly checks: Array<{ name: string; condition: string; failure: () => Error }> = [];
  private readonly values: unknown[] = [];

  /** A bind parameter (`$n`) for `value`, optionally cast (`$n::jsonb`). */
  param(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }

  /** Adds one data-modifying statement; returns its name, for `RETURNING` rows that later parts or checks read. */
  write(sql: string): string {
    const name = `w${this.parts.length + 1}`;
    this.parts.push(`${name} AS (${sql})`);
    return name;
  }

  /** After the writes, `condition` (SQL over the parts' names) must hold, or `failure()` is thrown. */
  require(condition: string, failure: () => Error): void {
    this.checks.push({ name: `c${this.checks.length + 1}`, condition, failure });
  }

  get isEmpty(): boolean {
    return this.parts.length === 0;
  }

  /** Runs every part in one statement (in `manager`'s transaction, if it has one), then the checks. */
  async execute(manager: EntityManager): Promise<void> {
    if (this.parts.length === 0) {
      return;
    }
    const select = this.checks.length > 0 ? this.checks.map((check) => `(${check.condition}) AS ${check.name}`).join(', ') : '1 AS done';
    const rows = await manager.query<Array<Record<string, boolean>>>(`WITH ${this.parts.join(',\n')}\nSELECT ${select}`, this.values);
    for (const check of this.checks) {
      if (rows[0]?.[check.name] !== true) {
        throw check.failure();
      }
    }
  }
}
