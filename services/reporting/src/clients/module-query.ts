import pg from 'pg';
import { coalesced, HttpError, type InternalClient, type ModuleName } from '@church/common';

// How reporting reaches another module's data: a read-only `pg` pool of its own when `<MODULE>_DATABASE_URL`
// is configured (the fleet on PostgreSQL, ideally with a read-only role), otherwise the owner's signed
// `POST /<module>/internal/query` (the embedded default, where each module's PGlite lives inside its owner).
// Either way each statement runs in a read-only transaction with a statement timeout.

export type SourceModule = Exclude<ModuleName, 'reporting'>;
export type Row = Record<string, unknown>;

/** One read-only statement against a module's database. */
export interface ModuleQuery {
  /**
   * The statement's rows. Identical statements (module, SQL, bound values, time limit) asked at the same time
   * share one run, and so share the rows: callers must not change them.
   */
  run(module: SourceModule, sql: string, params: unknown[], timeoutMs: number): Promise<Row[]>;
  close(): Promise<void>;
  /** how each module is reached, for the README's claims and tests */
  route(module: SourceModule): 'database' | 'internal';
}

/** A failed report query: 502 naming the query, never the SQL or the bound values. */
export class ReportQueryError extends HttpError {
  constructor(
    readonly queryKey: string,
    readonly module: SourceModule,
    readonly reason: 'timeout' | 'readOnly' | 'failed',
    readonly cause?: unknown,
  ) {
    const why = reason === 'timeout' ? 'took longer than its time limit' : reason === 'readOnly' ? 'tried to write through a read-only connection' : 'failed';
    super(502, [{ msg: `Report query "${queryKey}" on ${module} ${why}` }]);
  }
}

/** PostgreSQL's codes for a cancelled statement and a write in a read-only transaction. */
export function failureReason(err: unknown): 'timeout' | 'readOnly' | 'failed' {
  const e = err as { code?: string; cause?: { code?: string }; message?: string; errors?: Array<{ msg?: string }> };
  const code = e?.code ?? e?.cause?.code;
  const text = `${e?.message ?? ''} ${e?.errors?.map((x) => x.msg).join(' ') ?? ''}`;
  if (code === '57014' || /statement timeout/i.test(text)) return 'timeout';
  if (code === '25006' || /read-only transaction/i.test(text)) return 'readOnly';
  return 'failed';
}

/** `statement_timeout` bounds: a definition may not ask for more than a minute. */
const clampTimeout = (ms: number) => Math.max(1, Math.min(60_000, Math.floor(ms)));

/** A statement as `run` is asked for it. */
interface Statement {
  module: SourceModule;
  sql: string;
  params: unknown[];
  ms: number;
}

/**
 * The module query client from reporting's config: `databaseUrls[module]` for modules read directly, the
 * internal client for the rest.
 *
 * Identical statements asked while one is out share the next run (`coalesced`, the rule of the shared batched
 * reads: a caller joins a run that starts after it asked, never one already under way, so its rows are never
 * older than its request). Twenty dashboards opening the same report of the same church cost one statement and
 * one hop to the owner per round instead of twenty: the hop (a signed HTTP call, the owner's read-only
 * transaction, JSON both ways) costs far more than a report's statement, which reads kept counts or a church's
 * rows by index.
 */
export function createModuleQuery(databaseUrls: Partial<Record<SourceModule, string>>, internal: InternalClient, poolSize = 4): ModuleQuery {
  const pools = new Map<SourceModule, pg.Pool>();
  const poolOf = (module: SourceModule, url: string) => {
    let pool = pools.get(module);
    if (!pool) {
      pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000, application_name: 'reporting' });
      // A dropped connection (the database restarted) must not end the process; the next query reconnects.
      pool.on('error', () => undefined);
      pools.set(module, pool);
    }
    return pool;
  };
  const runOnce = async ({ module, sql, params, ms }: Statement): Promise<Row[]> => {
    const url = databaseUrls[module];
    if (!url) {
      const answer = await internal.post<{ rows: Row[] }>(module, `/${module}/internal/query`, { sql, params, timeoutMs: ms });
      return answer.rows;
    }
    const client = await poolOf(module, url).connect();
    try {
      // One round trip for both (a simple-protocol query may hold several statements; `ms` is a clamped integer).
      await client.query(`begin transaction read only; set local statement_timeout = ${ms}`);
      const result = await client.query({ text: sql, values: params });
      await client.query('commit');
      // The same values the internal route's JSON answer carries (a Date becomes its ISO text).
      return JSON.parse(JSON.stringify(result.rows)) as Row[];
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  const shared = coalesced(runOnce, (q) => `${q.module}\n${q.ms}\n${JSON.stringify(q.params)}\n${q.sql}`);
  return {
    route: (module) => (databaseUrls[module] ? 'database' : 'internal'),
    run: (module, sql, params, timeoutMs) => shared({ module, sql, params, ms: clampTimeout(timeoutMs) }),
    async close() {
      await Promise.all([...pools.values()].map((p) => p.end()));
      pools.clear();
    },
  };
}
