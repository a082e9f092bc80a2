import { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * Rows of several tables in one statement, as JSON (an aggregate and its children read in one round trip
 * instead of one per table), turned back into entities from the same TypeORM metadata as a `find`.
 */

const TIMESTAMP_TYPES = new Set<unknown>(['timestamptz', 'timestamp', 'timestamp with time zone', 'timestamp without time zone', 'date', Date]);

/** `"schema"."table"` of an entity, quoted. */
export function tableSql(manager: EntityManager, target: EntityTarget<ObjectLiteral>): string {
  const metadata = manager.connection.getMetadata(target);
  return [metadata.schema, metadata.tableName]
    .filter((part): part is string => Boolean(part))
    .map((part) => manager.connection.driver.escape(part))
    .join('.');
}

/**
 * SQL of one row of `target` under `alias` as a JSON object keyed by column name. Bigints travel as text (a
 * JSON number loses digits beyond 2^53). json_build_object takes at most 100 arguments: 50 columns.
 */
export function rowJsonSql(manager: EntityManager, target: EntityTarget<ObjectLiteral>, alias: string): string {
  const { columns } = manager.connection.getMetadata(target);
  if (columns.length > 50) {
    throw new Error('rowJsonSql: more than 50 columns');
  }
  const fields = columns.map((column) => {
    const reference = `${alias}.${manager.connection.driver.escape(column.databaseName)}`;
    return `'${column.databaseName}', ${column.type === 'bigint' ? `${reference}::text` : reference}`;
  });
  return `json_build_object(${fields.join(', ')})`;
}

/** The entity of a row made by `rowJsonSql`: timestamps back to Date, everything else as JSON gave it. */
export function entityFromJson<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, row: Record<string, unknown>): T {
  const metadata: EntityMetadata = manager.connection.getMetadata(target);
  const entity = metadata.create() as T;
  for (const column of metadata.columns) {
    const value = row[column.databaseName];
    column.setEntityValue(entity, value === null || value === undefined ? null : TIMESTAMP_TYPES.has(column.type) ? new Date(value as string) : value);
  }
  return entity;
}

/**
 * An entity as a JSON object keyed by column name, every column the entity knows present: the inverse of
 * `entityFromJson`, for rows written in one statement (`insertJsonRowsSql`).
 */
export function entityToJson<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, entity: T): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of manager.connection.getMetadata(target).columns) {
    const value: unknown = column.getEntityValue(entity);
    row[column.databaseName] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return row;
}

/**
 * `INSERT` of the JSON rows (an array of `entityToJson` objects) bound at `jsonParamSql`, naming exactly the
 * entity's columns. `jsonb_populate_recordset` gives a row of the table's whole current type: a column a newer
 * release's migration added is NULL there, so `INSERT … SELECT *` would write NULL into it (a `NOT NULL DEFAULT`
 * column then fails every creation of the replicas still running the old code). Naming the columns leaves every
 * other column to its default.
 */
export function insertJsonRowsSql(manager: EntityManager, target: EntityTarget<ObjectLiteral>, jsonParamSql: string): string {
  const table = tableSql(manager, target);
  const columns = manager.connection
    .getMetadata(target)
    .columns.map((column) => manager.connection.driver.escape(column.databaseName))
    .join(', ');
  return `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, ${jsonParamSql})`;
}

/**
 * `UPDATE` of the rows of `target` matched by `keys` from the JSON rows (`entityToJson` objects) bound at
 * `jsonParamSql`, setting only the `columns` named (entity property names): a batch of aggregates saved in
 * one statement with each row's own values.
 */
export function updateJsonRowsSql<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  keys: ReadonlyArray<keyof T & string>,
  columns: ReadonlyArray<keyof T & string>,
  jsonParamSql: string,
): string {
  const metadata = manager.connection.getMetadata(target);
  const name = (property: string): string => {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column) {
      throw new Error(`updateJsonRowsSql: ${metadata.name} has no column ${property}`);
    }
    return manager.connection.driver.escape(column.databaseName);
  };
  const table = tableSql(manager, target);
  return `UPDATE ${table} AS t SET ${columns.map((property) => `${name(property)} = v.${name(property)}`).join(', ')}
            FROM jsonb_populate_recordset(NULL::${table}, ${jsonParamSql}) AS v
           WHERE ${keys.map((property) => `t.${name(property)} = v.${name(property)}`).join(' AND ')}`;
}
