import { Column, is, Placeholder, SQL, type Query, type SQLWrapper } from 'drizzle-orm';
import { PgDialect, QueryBuilder, type PgColumn } from 'drizzle-orm/pg-core';
import { rowsOf, type DbOrTx } from './db';

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
 * mapping (`Date`s, arrays), as drizzle would, but without its generic per-cell row mapper, which took most of
 * a large list's read (bench/results/design-measurements.md).
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
const dialect = new PgDialect();

/**
 * Renders a statement once, with one bind parameter per placeholder name: drizzle numbers every occurrence
 * apart, and a statement naming the church a dozen times would otherwise send (and PostgreSQL parse) a dozen
 * copies of every value, arrays included. Literal values (`eq(t.removed, false)`) stay parameters of their own.
 */
function render(query: SQL): Query {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const keys = params.map((p, i) => (p instanceof Placeholder ? `:${p.name}` : i));
  const distinct = [...new Set(keys)];
  return {
    sql: text.replace(/\$(\d+)/g, (_, n: string) => `$${distinct.indexOf(keys[Number(n) - 1]!) + 1}`),
    params: distinct.map((key) => (typeof key === 'number' ? params[key] : new Placeholder(key.slice(1)))),
  };
}

/**
 * A statement rendered once: `query` (raw `sql` or a query builder) names what varies with
 * `sql.placeholder(name)`, and each call only fills those in. Rendering a drizzle query costs more CPU per call
 * than PostgreSQL spends running a hot route's statement (bench/results/design-measurements.md); on PostgreSQL the fixed text is also a server-side prepared statement (db.ts). Works inside
 * transactions too. Rows are answered as the driver returns them (keyed by column name or alias).
 */
export function prepared<Row>(query: SQLWrapper): (db: DbOrTx, values: Record<string, unknown>) => Promise<Row[]> {
  const rendered = render(query.getSQL());
  return async (db, values) => rowsOf<Row>(await db._.session.prepareQuery(rendered, undefined, undefined, false).execute(values));
}

/** `prepared` for a fixed-shape read of `columns`, decoded as `rowReader` does. */
export function preparedReader<T extends Fields>(
  columns: T,
  build: (qb: QueryBuilder) => SQLWrapper,
): (db: DbOrTx, values: Record<string, unknown>) => Promise<Array<RowOf<T>>> {
  const decode = decoder(columns);
  const run = prepared<Record<string, unknown>>(build(builder));
  return async (db, values) => decode(await run(db, values));
}
