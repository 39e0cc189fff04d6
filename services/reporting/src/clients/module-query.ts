import pg from 'pg';
import { HttpError, type InternalClient, type ModuleName } from '@church/common';

// How reporting reaches another module's data: a read-only `pg` pool of its own when `<MODULE>_DATABASE_URL`
// is configured (the fleet on PostgreSQL, ideally with a read-only role), otherwise the owner's signed
// `POST /<module>/internal/query` (the embedded default, where each module's PGlite lives inside its owner).
// Either way each statement runs in a read-only transaction with a statement timeout.

export type SourceModule = Exclude<ModuleName, 'reporting'>;
export type Row = Record<string, unknown>;

/** One read-only statement against a module's database. */
export interface ModuleQuery {
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

/**
 * The module query client from reporting's config: `databaseUrls[module]` for modules read directly, the
 * internal client for the rest.
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
  return {
    route: (module) => (databaseUrls[module] ? 'database' : 'internal'),
    async run(module, sql, params, timeoutMs) {
      const ms = clampTimeout(timeoutMs);
      const url = databaseUrls[module];
      if (!url) {
        const answer = await internal.post<{ rows: Row[] }>(module, `/${module}/internal/query`, { sql, params, timeoutMs: ms });
        return answer.rows;
      }
      const client = await poolOf(module, url).connect();
      try {
        await client.query('begin transaction read only');
        await client.query(`set local statement_timeout = ${ms}`);
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
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.end()));
      pools.clear();
    },
  };
}
