import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Results } from '@electric-sql/pglite';
import { engineDown, guardParams, journalTable, withLifecycle, type Database, type Db } from './db';

/**
 * One PGlite for the whole embedded fleet, a schema per module.
 *
 * A PGlite instance costs about 180 MB of WASM memory whatever it holds, so seven of them (one per module) kept
 * the embedded fleet at 1.5 GB resident while idle. Here the modules share one instance and each keeps its
 * tables in its own schema (`membership`, `attendance`, …): the same table names, the same migrations, no way
 * to read another module's rows by accident. PGlite is a single session, so each module's handle runs its
 * statements under a lock that first points `search_path` at the module (`<module>, public`). A transaction
 * holds the lock until it ends, as PGlite itself does. Extensions live in `public`, created once.
 *
 * Only the embedded fleet (one process) opens this. Each deployed service keeps its own PostgreSQL database.
 */
export interface EmbeddedDatabase {
  /** the handle of one module, its tables in schema `module` */
  forModule(module: string): Database;
  /** how many times the engine failed and was opened again */
  restarts(): number;
  close(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** told when the engine failed and is being opened again, and when it could not be (`fatal`) */
  onFailure?: (err: unknown, fatal: boolean) => void;
}

type Query = (text: string, params?: unknown[], options?: unknown) => Promise<Results<unknown>>;

/** Opens (or creates) the shared PGlite under `dataDir`, in memory when absent. */
export async function openEmbeddedDatabase(dataDir?: string, opts: EmbeddedDatabaseOptions = {}): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = await import('@electric-sql/pglite/contrib/btree_gin');
  const { drizzle } = await import('drizzle-orm/pglite');
  // The facade below speaks the part of PGlite's interface drizzle's session uses.
  const drizzleOf = (facade: unknown) => (drizzle as unknown as (config: { client: unknown }) => Db)({ client: facade });
  const options = { extensions: { pg_trgm, btree_gin } };
  if (dataDir) mkdirSync(path.resolve(dataDir), { recursive: true });
  /**
   * The engine fails as a whole, not a query at a time: after a WASM abort or a broken protocol read PGlite
   * answers every later query with no rows, and every church's data would look deleted. A query that fails
   * that way marks the session failed (`onEngineError`); the next statement, inside the lock, closes it and
   * opens the folder again (what was committed is on disk), and until then every statement answers 503.
   */
  let failed: unknown;
  let fatal: unknown;
  let restarts = 0;
  const onEngineError = (err: unknown) => {
    if (failed || fatal) return;
    failed = err;
    opts.onFailure?.(err, false);
  };
  const open = async () => {
    const raw = dataDir ? await PGlite.create(path.resolve(dataDir), options) : await PGlite.create(options);
    // Every module's migrations say `CREATE EXTENSION IF NOT EXISTS …`: made here, in `public`, they are on every path.
    await raw.exec('create extension if not exists pg_trgm schema public; create extension if not exists btree_gin schema public;');
    return { raw, guarded: guardParams(raw, onEngineError) };
  };
  let client = await open();
  async function reopen() {
    const broken = client.raw;
    await broken.close().catch(() => undefined);
    try {
      // In memory there is nothing to open again: the data went with the engine.
      if (!dataDir) throw new Error('the in-memory embedded database failed');
      client = await open();
      restarts++;
      failed = undefined;
    } catch (err) {
      fatal = err;
      opts.onFailure?.(err, true);
    }
  }

  let tail: Promise<unknown> = Promise.resolve();
  let currentPath = '';
  /**
   * Runs `fn` alone on the session, with `search_path` set for `schema`. A caller that waits longer than
   * `LOCK_WAIT_MS` gives up with a database-unavailable error (503) rather than wait for ever: a transaction
   * that waited on another module which in turn waited on this lock would otherwise hang both.
   */
  function exclusive<T>(schema: string, fn: () => Promise<T>): Promise<T> {
    let abandoned = false;
    const run = tail.then(async () => {
      if (abandoned) throw lockTimeout();
      if (failed && !fatal) {
        await reopen();
        currentPath = '';
      }
      if (fatal) throw engineDown(fatal);
      const wanted = `"${schema}", public`;
      if (currentPath !== wanted) {
        await client.guarded.exec(`create schema if not exists "${schema}"; set search_path to ${wanted};`);
        currentPath = wanted;
      }
      // A statement that broke the engine answers 503, not what the engine said (or failed to say).
      let result: T;
      try {
        result = await fn();
      } catch (err) {
        throw failed ? engineDown(failed) : err;
      }
      if (failed) throw engineDown(failed);
      return result;
    });
    tail = run.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abandoned = true;
        reject(lockTimeout());
      }, LOCK_WAIT_MS);
      timer.unref();
    });
    return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
  }

  return {
    forModule(module) {
      if (!/^[a-z][a-z0-9_]*$/.test(module)) throw new Error(`not a schema name: ${module}`);
      const query: Query = (text, params, opts) => exclusive(module, () => client.guarded.query(text, params as unknown[], opts as never));
      // What drizzle's PGlite session calls: `query`, and `transaction` whose callback gets PGlite's own
      // transaction object (it runs inside the lock, on the path set for this module, its statements guarded).
      const facade = {
        query,
        transaction: <T>(fn: (tx: unknown) => Promise<T>) => exclusive(module, () => client.guarded.transaction((tx) => fn(tx))),
      };
      const db = drizzleOf(facade);
      const rows = async <T>(text: string, params: unknown[]) => (await query(text, params)).rows as T[];
      const migrate = async (folder: string) => {
        const { readMigrationFiles } = await import('drizzle-orm/migrator');
        // Generated SQL names `"public".<table>` in foreign keys; here a module's tables are in its own schema.
        const migrations = readMigrationFiles({ migrationsFolder: folder }).map((m) => ({ ...m, sql: m.sql.map((s) => s.replaceAll('"public".', '')) }));
        const internals = db as unknown as { dialect: { migrate(m: unknown, s: unknown, c: unknown): Promise<void> }; session: unknown };
        await internals.dialect.migrate(migrations, internals.session, { migrationsSchema: module, migrationsTable: journalTable(folder) });
      };
      const failure = () => (fatal ? `the embedded database failed and could not be opened again: ${String(fatal)}` : undefined);
      return withLifecycle(db, 'pglite', rows, migrate, async () => undefined, module, failure);
    },
    restarts: () => restarts,
    async close() {
      await tail;
      await client.raw.close();
    },
  };
}

/** How long a statement waits for the shared session before it answers 503. */
const LOCK_WAIT_MS = 30_000;

function lockTimeout(): Error {
  return Object.assign(new Error(`the embedded database was busy for ${LOCK_WAIT_MS / 1000} s`), { code: '53300' });
}
