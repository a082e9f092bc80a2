import { EntityManager, QueryFailedError } from 'typeorm';

/** A PostgreSQL error of a failed statement: its SQLSTATE and, for constraint errors, the constraint's name. */
export function constraintViolated(error: unknown, sqlState: string, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) {
    return false;
  }
  const driverError = error.driverError as { code?: unknown; constraint?: unknown } | undefined;
  return driverError?.code === sqlState && driverError.constraint === constraint;
}

/** SQLSTATEs that repositories turn into their own errors. */
export const SqlState = {
  uniqueViolation: '23505',
  checkViolation: '23514',
} as const;

/**
 * Writes of several repositories sent as one statement (data-modifying CTEs), so a creation that writes to
 * seven tables costs one round trip instead of seven (issue 19: on this VM each statement is a socket write and
 * a parse and plan in PostgreSQL, the larger part of an order creation's CPU). One statement is atomic on its
 * own: when any part fails (a constraint), nothing of it is written, inside a transaction or not. Every part
 * runs exactly once, and all of them see the snapshot the statement started with: a part can read what an
 * earlier part returned (its name, from `RETURNING`), never a row another part wrote through the table.
 * A repository adds its SQL with `write`, and with `translate` turns its constraint's error into its own.
 */
export class WriteBatch {
  private readonly parts: string[] = [];
  private readonly values: unknown[] = [];
  private readonly translators: Array<(error: unknown) => Error | undefined> = [];
  private readonly executed: Array<() => void> = [];

  /** A bind parameter (`$n`) for `value`, optionally cast (`$n::jsonb`). */
  param(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }

  /** Adds one data-modifying statement; returns its name, for the `RETURNING` rows that later parts read. */
  write(sql: string): string {
    const name = `w${this.parts.length + 1}`;
    this.parts.push(`${name} AS (${sql})`);
    return name;
  }

  /** When the statement fails, `translate` may name the error a repository's rule gives it (else it is rethrown). */
  translate(translate: (error: unknown) => Error | undefined): void {
    this.translators.push(translate);
  }

  /** Runs `callback` once the statement succeeded (e.g. the outbox writer's signal that rows were written). */
  afterExecute(callback: () => void): void {
    this.executed.push(callback);
  }

  /** Runs every part in one statement (in `manager`'s transaction, if it has one). */
  async execute(manager: EntityManager): Promise<void> {
    if (this.parts.length === 0) {
      return;
    }
    try {
      await manager.query(`WITH ${this.parts.join(',\n')}\nSELECT 1 AS done`, this.values);
    } catch (error) {
      for (const translate of this.translators) {
        const translated = translate(error);
        if (translated) {
          throw translated;
        }
      }
      throw error;
    }
    this.executed.forEach((callback) => callback());
  }
}
