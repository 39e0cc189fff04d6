import { Placeholder, type Query, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { rowsOf, type DbOrTx } from '@church/common';

const dialect = new PgDialect();

/**
 * Renders a statement whose values are all `sql.placeholder(name)`s with one bind parameter per name: drizzle
 * numbers every occurrence apart, and a statement naming the church a dozen times would otherwise send (and
 * PostgreSQL parse) a dozen copies of every value, arrays included.
 */
function render(query: SQL): Query {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const names = params.map((p) => {
    if (!(p instanceof Placeholder)) throw new Error('prepared statements take placeholders only');
    return p.name;
  });
  const distinct = [...new Set(names)];
  return {
    sql: text.replace(/\$(\d+)/g, (_, n: string) => `$${distinct.indexOf(names[Number(n) - 1]!) + 1}`),
    params: distinct.map((name) => new Placeholder(name)),
  };
}

/**
 * A raw statement rendered once: `query` names what varies with `sql.placeholder(name)`, and each call only
 * fills those in. Rendering a drizzle `sql` template costs more CPU per call than PostgreSQL spends running
 * a hot route's statement; on PostgreSQL the fixed text is also a server-side prepared statement (db.ts).
 * Rows are answered as the driver returns them (keyed by column name or alias).
 */
export function prepared<Row>(query: SQL): (db: DbOrTx, values: Record<string, unknown>) => Promise<Row[]> {
  const rendered = render(query);
  return async (db, values) => rowsOf<Row>(await db._.session.prepareQuery(rendered, undefined, undefined, false).execute(values));
}
