/** What the seed needs of a connection: `pg`'s Client and PGlite both answer `query(text, params)` this way. */
export interface Exec {
  query(text: string, params?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

export interface StepTiming {
  step: string;
  rows: number;
  ms: number;
}

/** Runs one seed statement and records how long it took and how many rows it wrote. */
export async function step(db: Exec, timings: StepTiming[], name: string, text: string, params?: unknown[]): Promise<void> {
  const started = performance.now();
  const result = (await db.query(text, params)) as { rows: unknown[]; rowCount?: number | null; affectedRows?: number };
  timings.push({ step: name, rows: Number(result.rowCount ?? result.affectedRows ?? 0), ms: Math.round(performance.now() - started) });
}

/** Quotes a constant for inlining into seed SQL (names, categories: our own constants, never input). */
export function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** `array['a','b']` of constants. */
export function textArray(values: readonly string[]): string {
  return `array[${values.map(literal).join(',')}]`;
}

/**
 * Bulk loads are several times faster without the secondary indexes and the primary key: drop them, load,
 * then recreate them from their saved definitions (the same DDL the migration created).
 */
export async function withoutIndexes(db: Exec, timings: StepTiming[], tables: string[], load: () => Promise<void>): Promise<void> {
  const list = tables.map(literal).join(',');
  const { rows: indexes } = await db.query(
    `select i.indexname, i.indexdef, c.conname, t.relname as tablename, pg_get_constraintdef(c.oid) as condef
       from pg_indexes i
       join pg_class t on t.relname = i.tablename and t.relnamespace = current_schema()::regnamespace
       left join pg_constraint c on c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass and c.contype in ('p', 'u')
      where i.schemaname = current_schema() and i.tablename in (${list})`,
  );
  for (const ix of indexes) {
    if (ix.conname) await db.query(`alter table "${String(ix.tablename)}" drop constraint "${String(ix.conname)}"`);
    else await db.query(`drop index "${String(ix.indexname)}"`);
  }
  await load();
  const started = performance.now();
  for (const ix of indexes) {
    if (ix.conname) await db.query(`alter table "${String(ix.tablename)}" add constraint "${String(ix.conname)}" ${String(ix.condef)}`);
    else await db.query(String(ix.indexdef));
  }
  timings.push({ step: `indexes of ${tables.join(', ')}`, rows: indexes.length, ms: Math.round(performance.now() - started) });
}
