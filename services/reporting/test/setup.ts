import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, testDatabase, type TestApp } from '@church/common/testing';
import { HttpError, readOnlyQuery, type Database, type InternalClient, type ModuleName } from '@church/common';
import { buildApp } from '../src/app';
import type { ReportDefinition } from '../src/domain/definition';
import type { SourceModule } from '../src/clients/module-query';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');
export { makeChurch } from '@church/common/testing';

/** The source modules' own committed migrations: reports run against the real tables. */
export const SOURCE_MIGRATIONS: Record<'membership' | 'attendance' | 'giving' | 'doing', string> = {
  membership: path.join(__dirname, '..', '..', 'membership', 'drizzle'),
  attendance: path.join(__dirname, '..', '..', 'attendance', 'drizzle'),
  giving: path.join(__dirname, '..', '..', 'giving', 'drizzle'),
  doing: path.join(__dirname, '..', '..', 'doing', 'drizzle'),
};

/** One query the fake owner answered (or refused). */
export interface QueryCall {
  module: ModuleName;
  sql: string;
  params: unknown[];
  timeoutMs: number;
  error?: { code?: string; message: string };
}

/**
 * A fake internal client that answers `POST /<module>/internal/query` as every module's shared route does:
 * `readOnlyQuery` on that module's database (a read-only transaction with a statement timeout), rows through
 * JSON. A failing query answers as the route's 500 reaches a caller (the internal client's 502); the database
 * error is kept in `calls` for assertions.
 */
export function fakeOwners(databases: Partial<Record<SourceModule, Database>>): InternalClient & { calls: QueryCall[] } {
  const calls: QueryCall[] = [];
  const request = async <T>(module: ModuleName, method: string, url: string, body?: unknown): Promise<T> => {
    const db = databases[module as SourceModule];
    if (method !== 'POST' || url !== `/${module}/internal/query` || !db) throw new HttpError(404, [{ msg: `no fake for ${method} ${url}` }]);
    const { sql, params, timeoutMs } = body as { sql: string; params: unknown[]; timeoutMs: number };
    // What the route's body schema would refuse reaches no database.
    if (typeof sql !== 'string' || !Array.isArray(params) || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
      throw new HttpError(400, [{ msg: 'bad internal query body' }]);
    }
    const call: QueryCall = { module, sql, params: JSON.parse(JSON.stringify(params)), timeoutMs };
    calls.push(call);
    try {
      const rows = await readOnlyQuery(db.db, sql, call.params, timeoutMs);
      return JSON.parse(JSON.stringify({ rows })) as T;
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string; message?: string }; message: string };
      call.error = { code: e.cause?.code ?? e.code, message: e.cause?.message ?? e.message };
      throw new HttpError(502, [{ msg: 'Internal server error' }]);
    }
  };
  return {
    calls,
    request,
    get: (module, url) => request(module, 'GET', url),
    post: (module, url, body) => request(module, 'POST', url, body),
  };
}

export interface ReportingHarness {
  t: TestApp;
  sources: Partial<Record<SourceModule, Database>>;
  owners: ReturnType<typeof fakeOwners>;
}

/**
 * The reporting app before the file's tests, with fresh databases of the named source modules (their
 * migrations applied) answered through the fake owners; closed after. `reports` replaces the shipped set.
 */
export function useReporting(modules: Array<keyof typeof SOURCE_MIGRATIONS>, opts: { reports?: ReportDefinition[]; config?: Record<string, string> } = {}): ReportingHarness {
  const harness = {} as ReportingHarness;
  beforeAll(async () => {
    harness.sources = {};
    for (const m of modules) harness.sources[m] = await testDatabase(m, SOURCE_MIGRATIONS[m]);
    harness.owners = fakeOwners(harness.sources);
    harness.t = await createTestApp('reporting', MIGRATIONS, (config, overrides) => buildApp(config, overrides, { reports: opts.reports }), {
      config: opts.config,
      overrides: { internal: harness.owners },
    });
  });
  afterAll(async () => {
    await harness.t?.close();
    for (const db of Object.values(harness.sources ?? {})) await db.close();
  });
  return harness;
}


/** Inserts one row (camelCase keys become snake_case columns) with a plain parameterised statement. */
export async function insert(db: Database, table: string, row: Record<string, unknown>): Promise<string> {
  const values = { id: randomUUID(), ...row };
  const columns = Object.keys(values).map((k) => `"${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`);
  const placeholders = columns.map((_c, i) => `$${i + 1}`);
  await db.rows(`insert into ${table} (${columns.join(', ')}) values (${placeholders.join(', ')})`, Object.values(values));
  return values.id as string;
}

/** Rows of a plain query, for checking that nothing was written. */
export async function count(db: Database, table: string): Promise<number> {
  const rows = await db.rows<{ n: number }>(`select count(*)::int as n from ${table}`, []);
  return rows[0]!.n;
}
