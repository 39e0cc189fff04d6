import { Column, fillPlaceholders, is, Param, SQL, StringChunk, type SQLChunk, type SQLWrapper } from 'drizzle-orm';
import { QueryBuilder, type PgColumn } from 'drizzle-orm/pg-core';
import { rowsOf, type DbOrTx } from '@church/common';

/** What a reader selects: columns, and computed values named with `sql<T>`...`.as(name)` (as the driver parses them). */
type Fields = Record<string, PgColumn | SQL.Aliased>;

/** The decoded row of a field map, as drizzle's `select(fields)` would type it. */
export type RowOf<T extends Fields> = {
  [K in keyof T]: T[K] extends PgColumn
    ? T[K]['_']['notNull'] extends true
      ? T[K]['_']['data']
      : T[K]['_']['data'] | null
    : T[K] extends SQL.Aliased<infer V>
      ? V
      : never;
};

type Decoder<T extends Fields> = (raw: Array<Record<string, unknown>>) => Array<RowOf<T>>;

/**
 * Decodes raw rows (keyed by column name or alias, as `execute` returns them) with each column's own driver
 * mapping (`Date`s, arrays), as drizzle would, but without its generic per-cell row mapper: on the
 * 10,000-person list that mapper took about 130 ms of a 210 ms read (the driver itself 60 ms).
 */
function decoder<T extends Fields>(fields: T): Decoder<T> {
  const entries = Object.entries(fields).map(([key, field]) => {
    if (is(field, SQL.Aliased)) return { key, name: field.fieldAlias, decode: undefined };
    const column = field as PgColumn;
    // Text, uuid, boolean and number columns keep the driver's value: no call per cell for them.
    const identity = column.mapFromDriverValue === Column.prototype.mapFromDriverValue;
    return { key, name: column.name, decode: identity ? undefined : (v: unknown) => column.mapFromDriverValue(v) };
  });
  // Rows start as a copy of an all-null row: every row then shares one object shape from the start.
  const empty: Record<string, unknown> = Object.fromEntries(entries.map(({ key }) => [key, null]));
  return (rows) => {
    const out = new Array<RowOf<T>>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const raw = rows[i]!;
      const row: Record<string, unknown> = { ...empty };
      for (const { key, name, decode } of entries) {
        const value = raw[name];
        if (value !== null && value !== undefined) row[key] = decode ? decode(value) : value;
      }
      out[i] = row as RowOf<T>;
    }
    return out;
  };
}

/**
 * Reads rows of `db.select(columns)...` built per call. Both drivers hand dates over as text through
 * `execute` (drizzle's raw mode); the decoder parses them as drizzle does. Raw rows are keyed by column
 * name, so the selected names must be distinct (columns of one table, plus aliased values).
 */
export function rowReader<T extends Fields>(columns: T): (db: DbOrTx, query: SQLWrapper) => Promise<Array<RowOf<T>>> {
  const decode = decoder(columns);
  return async (db, query) => decode(rowsOf(await db.execute(query)));
}

const builder = new QueryBuilder();

/**
 * A fixed-shape read, built once: `build` writes the query with `sql.placeholder(name)` for the values
 * that vary, and each call only fills them in. Building a drizzle query costs more CPU than PostgreSQL
 * spends running a one-row lookup (people/:id: 530 µs per read built each time, 160 µs prepared), and on
 * PostgreSQL the text is also a server-side prepared statement (db.ts). Works inside transactions too.
 */
export function preparedReader<T extends Fields>(
  columns: T,
  build: (qb: QueryBuilder) => { toSQL(): { sql: string; params: unknown[] } },
): (db: DbOrTx, values: Record<string, unknown>) => Promise<Array<RowOf<T>>> {
  const decode = decoder(columns);
  const { sql: text, params } = build(builder).toSQL();
  // The text alternates literal SQL and `$n` markers; drizzle renumbers the same way when it runs it.
  const parts = text.split(/\$(\d+)/).map((part, i) => (i % 2 ? Number(part) - 1 : new StringChunk(part)));
  return async (db, values) => {
    const args = fillPlaceholders(params, values);
    const chunks: SQLChunk[] = parts.map((part) => (typeof part === 'number' ? new Param(args[part]) : part));
    return decode(rowsOf(await db.execute(new SQL(chunks))));
  };
}
