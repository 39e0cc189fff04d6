import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fakeInternal, testDatabase, useModule } from '@church/common/testing';
import { HttpError, readOnlyQuery, type Database, type ModuleName, type ServiceDeps } from '@church/common';
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
 * The owners of the source modules as reporting reaches them: a `fakeInternal` (`internal`) answering
 * `POST /<module>/internal/query` as every module's shared route does: `readOnlyQuery` on that module's database
 * (a read-only transaction with a statement timeout), rows through JSON. A failing query answers as the route's
 * 500 reaches a caller (the internal client's 502); `calls` keeps each query asked, with the database's error.
 */
export function fakeOwners(databases: Partial<Record<SourceModule, Database>>) {
  const calls: QueryCall[] = [];
  const owner = (module: SourceModule, db: Database) => async (body: { sql: string; params: unknown[]; timeoutMs: number }) => {
    const { sql, params, timeoutMs } = body;
    // What the route's body schema would refuse reaches no database.
    if (typeof sql !== 'string' || !Array.isArray(params) || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
      throw new HttpError(400, [{ msg: 'bad internal query body' }]);
    }
    const call: QueryCall = { module, sql, params: JSON.parse(JSON.stringify(params)), timeoutMs };
    calls.push(call);
    try {
      const rows = await readOnlyQuery(db.db, sql, call.params, timeoutMs);
      return JSON.parse(JSON.stringify({ rows }));
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string; message?: string }; message: string };
      call.error = { code: e.cause?.code ?? e.code, message: e.cause?.message ?? e.message };
      throw new HttpError(502, [{ msg: 'Internal server error' }]);
    }
  };
  const internal = fakeInternal(
    Object.fromEntries(Object.entries(databases).flatMap(([module, db]) => (db ? [[`POST /${module}/internal/query`, owner(module as SourceModule, db)]] : []))),
  );
  return { internal, calls };
}

/** What a test's fakes started before the app add to it (`useModule`'s `fakes`): a database of its own, say. */
type Started<X> = X & { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; close?: () => Promise<void> };

/**
 * The one lifecycle of reporting's tests: the app before the file's (or the describe's) tests, with fresh
 * databases of the named source modules (`sources`, their migrations applied) answered through the fake owners
 * (`owners`); closed after. `reports` replaces the shipped set; `fakes` starts more before the app.
 */
export function useReporting<X extends object = object>(
  modules: Array<keyof typeof SOURCE_MIGRATIONS>,
  opts: { reports?: ReportDefinition[]; config?: Record<string, string>; fakes?: () => Promise<Started<X>> } = {},
) {
  return useModule({
    module: 'reporting',
    migrations: MIGRATIONS,
    build: (config, overrides) => buildApp(config, overrides, { reports: opts.reports }),
    config: opts.config,
    fakes: async () => {
      const sources: Partial<Record<SourceModule, Database>> = {};
      for (const m of modules) sources[m] = await testDatabase(m, SOURCE_MIGRATIONS[m]);
      const owners = fakeOwners(sources);
      const more = opts.fakes ? await opts.fakes() : ({} as Started<X>);
      return {
        ...more,
        sources,
        owners,
        overrides: { internal: owners.internal, ...more.overrides },
        close: async () => {
          await more.close?.();
          for (const db of Object.values(sources)) await db.close();
        },
      };
    },
  });
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

/** A report around one membership statement (what the engine and the direct-database tests run); `extra` adds to it. */
export const probeReport = (keyName: string, sql: string, extra: Partial<ReportDefinition> = {}): ReportDefinition => ({
  keyName,
  displayName: keyName,
  description: 'test',
  parameters: [{ keyName: 'churchId', source: 'token', claim: 'churchId' }],
  queries: [{ keyName: 'main', module: 'membership', params: ['churchId'], sql }],
  table: { from: 'main' },
  outputs: [{ outputType: 'table', columns: [] }],
  permissions: [{ requireOne: ['People.View'] }],
  ...extra,
});
