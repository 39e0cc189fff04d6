import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { createHash } from 'node:crypto';
import pg from 'pg';
// Static imports: a dynamic import() would load drizzle's ESM build beside the CommonJS one the modules use,
// and drizzle's entity checks are much slower across two copies.
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { HttpError } from './errors';
import { trackTransactions } from './tx-scope';

/** The job outbox's tables (`job_outbox`, `job_runs`; outbox.ts), migrated into every module's database before its own. */
export const OUTBOX_MIGRATIONS = path.join(__dirname, '..', 'drizzle', 'outbox');

/** A drizzle handle, the same type over `pg` and over PGlite. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = PgDatabase<PgQueryResultHKT, any>;
/** A handle or an open transaction: repositories accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /**
   * A plain parameterised query straight to the driver, for the tiny reads every request makes (a version
   * lookup): drizzle's query building costs more than PostgreSQL's answer there. Prepared on PostgreSQL.
   */
  rows<T>(text: string, params: unknown[]): Promise<T[]>;
  /**
   * Applies committed migrations. A module may keep several folders (one per half of a large module, each
   * generated from its own schema file): each folder's journal is its own table, `drizzle/<folder>` → 
   * `drizzle.__drizzle_migrations_<folder>`; a folder named `drizzle` keeps drizzle's default table.
   */
  migrate(migrationsFolder: string | readonly string[]): Promise<void>;
  /** true when the database answers and migrations have been applied by this process or before */
  ready(): Promise<boolean>;
  /** why the database cannot serve at all (the embedded engine failed and has not come back), or undefined */
  failure(): string | undefined;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; PGlite when absent */
  url?: string;
  /** folder for PGlite's files; in memory when absent */
  dataDir?: string;
  poolSize?: number;
}

/** Opens PostgreSQL through `pg` when a URL is given, PGlite (WASM Postgres) otherwise. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolSize ?? 10) : openPglite(options.dataDir);
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, Client: PreparingClient });
  // A pool error (the server restarted) must not crash the process; queries retry on new connections.
  pool.on('error', () => undefined);
  // pg-pool listens for a client's errors only while the client is idle; a backend terminated while a client is
  // checked out (in a transaction, or between a query's parts) emits 'error' with no listener, which would end
  // the process. Every client keeps a listener of its own: the query in flight fails (503 below) and the pool
  // drops the broken client.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = drizzlePg({ client: pool }) as unknown as Db;
  const rows = async <T>(text: string, params: unknown[]) => (await pool.query({ text, values: params })).rows as T[];
  // pool.end() waits for every checked-out client: never let a stuck one hold a shutdown forever.
  const end = () => Promise.race([pool.end(), new Promise<void>((r) => setTimeout(r, 5000).unref())]);
  return withLifecycle(db, 'postgres', rows, (folder) => migratePg(db as never, { migrationsFolder: folder, migrationsTable: journalTable(folder) }), end);
}

/** Distinct statement texts that get a server-side prepared statement per connection; beyond it, plain queries. */
const MAX_PREPARED_TEXTS = 2000;
const statementNames = new Map<string, string>();

/**
 * A `pg` client that prepares every parameterised statement once per connection (a named statement keyed by
 * its text). On these small queries PostgreSQL spends more time parsing and planning than executing: prepared,
 * the same query runs several times faster on the server (bench/results/design-measurements.md). Only
 * parameterised texts qualify, which is what drizzle's builder emits; DDL and raw migrations are never named.
 */
class PreparingClient extends pg.Client {
  private releaseScheduled = false;

  /**
   * A client whose connection died while checked out is handed back to the pool (which drops it) if its
   * borrower does not: drizzle's transaction leaks its client when `begin` itself fails, and each leak would
   * take a pool slot for good. A borrower that does release it first makes this a no-op (a second release throws,
   * caught here); a dead client is never lent again, so this cannot release someone else's checkout.
   */
  private releaseIfAbandoned(err: unknown): void {
    if (this.releaseScheduled) return;
    this.releaseScheduled = true;
    setTimeout(() => {
      try {
        (this as unknown as { release?: (e?: unknown) => void }).release?.(err);
      } catch {
        // released by its borrower already
      }
    }, 2000).unref();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override connect(callback?: any): any {
    this.on('error', (err) => this.releaseIfAbandoned(err));
    return super.connect(callback);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    const result = this.prepareAndQuery(config, values, callback);
    if (result && typeof result.catch === 'function') {
      (result as Promise<unknown>).catch((err: unknown) => {
        if (isDatabaseUnavailable(err)) this.releaseIfAbandoned(err);
      });
    }
    return result;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private prepareAndQuery(config: any, values?: any, callback?: any): any {
    const tooMany = tooManyParams(Array.isArray(values) ? values : config?.values);
    if (tooMany) {
      if (typeof callback === 'function') return void callback(tooMany);
      return Promise.reject(tooMany);
    }
    if (config && typeof config === 'object' && typeof config.text === 'string' && !config.name) {
      const params = Array.isArray(values) ? values : config.values;
      if (Array.isArray(params) && params.length > 0 && params.length <= 100) {
        let name = statementNames.get(config.text);
        if (!name && statementNames.size < MAX_PREPARED_TEXTS) {
          name = `d_${createHash('sha1').update(config.text).digest('base64url').slice(0, 20)}`;
          statementNames.set(config.text, name);
        }
        if (name) config = { ...config, name };
      }
    }
    return super.query(config, values, callback);
  }
}

async function openPglite(dataDir?: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  // Extensions a migration may create (`CREATE EXTENSION`): PGlite only knows the ones loaded here.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = await import('@electric-sql/pglite/contrib/btree_gin');
  const options = { extensions: { pg_trgm, btree_gin } };
  if (dataDir) mkdirSync(path.resolve(dataDir), { recursive: true });
  // A PGlite of its own (tests, a data folder from before the shared one): an engine failure is final here.
  let failed: unknown;
  const client = guardParams(dataDir ? await PGlite.create(path.resolve(dataDir), options) : await PGlite.create(options), (err) => (failed ??= err), () => failed);
  const db = drizzle({ client }) as unknown as Db;
  const rows = async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows;
  const failure = () => (failed ? `the embedded database failed: ${String(failed)}` : undefined);
  return withLifecycle(db, 'pglite', rows, (folder) => migrate(db as never, { migrationsFolder: folder, migrationsTable: journalTable(folder) }), () => client.close(), 'drizzle', failure);
}

/**
 * The most values one statement may carry. PGlite's wire protocol breaks beyond a signed 16-bit count, and the
 * session then answers every later query with no rows (every church's data would look deleted); PostgreSQL's
 * protocol ends at 65,535. One limit for both: code that could reach it sends arrays (`= any($1)`) instead.
 */
export const MAX_STATEMENT_PARAMS = 32_767;

/** The 400 for a statement with more values than the database takes, or undefined when it fits. */
export function tooManyParams(params: unknown): HttpError | undefined {
  if (!Array.isArray(params) || params.length <= MAX_STATEMENT_PARAMS) return undefined;
  return new HttpError(400, [
    {
      msg: `The request asks the database for ${params.length} values in one statement (at most ${MAX_STATEMENT_PARAMS}); send fewer items or conditions`,
      param: 'body',
      location: 'body',
    },
  ]);
}

interface PgliteLike {
  query(text: string, params?: unknown[], options?: unknown): Promise<unknown>;
  transaction<T>(fn: (tx: never) => Promise<T>): Promise<T>;
}

/**
 * A PGlite client (or one of its transactions) that refuses a statement over `MAX_STATEMENT_PARAMS` before it
 * reaches the engine, with `onEngineError` told of any error that is not the database's own answer (a WASM
 * abort, a broken protocol read: the session is not to be trusted after it).
 */
export function guardParams<C extends object>(client: C, onEngineError?: (err: unknown) => void, failedBefore?: () => unknown): C {
  const target = client as unknown as PgliteLike;
  const query = async (text: string, params?: unknown[], options?: unknown) => {
    const tooMany = tooManyParams(params);
    if (tooMany) throw tooMany;
    const failed = failedBefore?.();
    if (failed) throw engineDown(failed);
    try {
      return await target.query(text, params, options);
    } catch (err) {
      if (onEngineError && !isDatabaseAnswer(err)) onEngineError(err);
      throw err;
    }
  };
  const transaction = <T>(fn: (tx: never) => Promise<T>) => target.transaction((tx) => fn(guardParams(tx as object, onEngineError, failedBefore) as never));
  return new Proxy(client, {
    get(obj, key, receiver) {
      if (key === 'query') return query;
      if (key === 'transaction' && typeof target.transaction === 'function') return transaction;
      const value = Reflect.get(obj, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
    },
  });
}

/** The 503 of a statement the failed embedded engine cannot run (`isDatabaseUnavailable` knows its code). */
export function engineDown(cause: unknown): Error {
  return Object.assign(new Error('the embedded database failed and is being opened again', { cause }), { code: '57P03' });
}

/** True for an error the database itself answered (a SQLSTATE), false for the engine or driver failing. */
function isDatabaseAnswer(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** drizzle's journal table of a migrations folder (see `Database.migrate`). */
export function journalTable(folder: string): string {
  const name = path.basename(path.resolve(folder));
  return name === 'drizzle' ? '__drizzle_migrations' : `__drizzle_migrations_${name.replace(/[^a-z0-9_]/gi, '_')}`;
}

/** A `Database` from a drizzle handle and its driver's pieces; `journalSchema` is where migrations keep their journal. */
export function withLifecycle(
  db: Db,
  kind: Database['kind'],
  rows: Database['rows'],
  runMigrations: (folder: string) => Promise<void>,
  close: () => Promise<void>,
  journalSchema = 'drizzle',
  failure: () => string | undefined = () => undefined,
): Database {
  let migrated = false;
  trackTransactions(db);
  return {
    db,
    kind,
    rows,
    failure,
    async migrate(folders) {
      // Every module's database keeps its job outbox (outbox.ts), made before the module's own tables.
      for (const folder of [OUTBOX_MIGRATIONS, ...(typeof folders === 'string' ? [folders] : folders)]) await runMigrations(folder);
      migrated = true;
    },
    async ready() {
      try {
        await db.execute(sql`select 1`);
        if (!migrated) {
          // Another process (the migrate Job) may have applied them: ask drizzle's journal table.
          const rows = await db.execute(sql`select count(*)::int as n from information_schema.tables where table_schema = ${journalSchema} and table_name like '__drizzle_migrations%'`);
          migrated = Number((rows as unknown as { rows: Array<{ n: number }> }).rows[0]?.n ?? 0) > 0;
        }
        return migrated;
      } catch {
        return false;
      }
    },
    close,
  };
}

/** A query text with `$1`-style placeholders as a drizzle `sql` object with the values bound. */
export function boundSql(text: string, params: readonly unknown[]) {
  const chunks = [];
  let last = 0;
  for (const m of text.matchAll(/\$(\d+)/g)) {
    const n = Number(m[1]);
    if (n < 1 || n > params.length) throw new Error(`placeholder $${n} has no value`);
    chunks.push(sql.raw(text.slice(last, m.index)), sql`${params[n - 1]}`);
    last = m.index + m[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks, sql.raw(''));
}

/**
 * Runs one parameterised query in a read-only transaction with a statement timeout (reports): any write in
 * it fails with PostgreSQL's "cannot execute … in a read-only transaction".
 */
export async function readOnlyQuery<T = Record<string, unknown>>(db: Db, text: string, params: readonly unknown[], timeoutMs = 10_000): Promise<T[]> {
  const ms = Math.max(1, Math.min(60_000, Math.floor(timeoutMs)));
  return db.transaction(async (tx) => {
    // Both settings in one round trip (one statement: PGlite takes no multi-statement query with the builder).
    await tx.execute(sql.raw(`select set_config('transaction_read_only', 'on', true), set_config('statement_timeout', '${ms}', true)`));
    return rowsOf<T>(await tx.execute(boundSql(text, params)));
  });
}

/** SQLSTATE classes and driver errors that mean the database is away (not a bug, not the caller's fault). */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/** True when an error (or its cause) says the database connection failed: answered 503, never a crash or a 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(e.message)) return true;
  }
  return false;
}

/** Rows of a raw `db.execute` result, the same over `pg` and PGlite. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
