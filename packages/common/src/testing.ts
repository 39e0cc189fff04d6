import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Client } from 'pg';
import { createSigner } from 'fast-jwt';
import {
  PERMISSIONS,
  apiForPermission,
  createTokenSigner,
  normalizePermission,
  permissionKey,
  type ApiName,
  type Claims,
} from '@church/auth';
import { baseConfig, loadConfig, type BaseConfig, type ModuleName } from './config';
import { openDatabase, type Database } from './db';
import type { ServiceDeps } from './service';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';

/** A config for tests: fixed secrets, a throwaway DATA_DIR, no outside services. */
export function testConfig(overrides: Record<string, string> = {}): BaseConfig & Record<string, unknown> {
  return loadConfig(baseConfig.passthrough(), {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'church-test-')),
    JWT_SECRET: TEST_SECRET,
    INTERNAL_SECRET: TEST_SECRET,
    ENCRYPTION_KEY: TEST_SECRET,
    ...overrides,
  });
}

/**
 * A fresh database for one test file: a new PostgreSQL database when TEST_DATABASE_URL is set (CI does),
 * an in-memory PGlite otherwise. Migrations are applied; `close()` drops it.
 */
export async function testDatabase(module: ModuleName, migrationsFolder: string): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const database = await openDatabase({});
    await database.migrate(migrationsFolder);
    return database;
  }
  const name = `test_${module}_${process.pid}_${randomUUID().slice(0, 8)}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 5 });
  await database.migrate(migrationsFolder);
  return {
    ...database,
    async close() {
      await database.close();
      const drop = new Client({ connectionString: adminUrl });
      await drop.connect();
      await drop.query(`drop database if exists "${name}" with (force)`);
      await drop.end();
    },
  };
}

export interface TokenOptions {
  churchId: string;
  userId?: string;
  personId?: string | null;
  email?: string;
  /** permissions as the spec writes them (`People.View`, `Attendance.View Summary`), or 'all' */
  permissions?: string[] | 'all';
  membershipStatus?: string;
  leaderGroupIds?: string[];
  serverAdmin?: boolean;
  /** seconds; negative for an already expired token */
  expiresIn?: number;
}

const sign = createTokenSigner(TEST_SECRET);

/** The per-API permission lists a token carries, from permissions written as the spec writes them. */
export function permissionLists(permissions: string[] | 'all', serverAdmin = false): Partial<Record<ApiName, string[]>> {
  const keys = permissions === 'all' ? PERMISSIONS.map((p) => `${p.apiName}|${permissionKey(p.contentType, p.action)}`) : [];
  const lists: Partial<Record<ApiName, string[]>> = {};
  const add = (api: ApiName, key: string) => (lists[api] ??= []).includes(key) || lists[api]!.push(key);
  for (const entry of keys) {
    const [api, key] = entry.split('|') as [ApiName, string];
    add(api, key);
  }
  if (permissions !== 'all') for (const p of permissions) add(apiForPermission(normalizePermission(p), 'MembershipApi'), normalizePermission(p));
  if (serverAdmin) add('MembershipApi', 'Server.Admin');
  return lists;
}

/** Mints a token signed with the test secret, as login would. */
export function tokenFor(opts: TokenOptions): string {
  const claims: Omit<Claims, 'iat' | 'exp'> = {
    id: opts.userId ?? randomUUID(),
    email: opts.email ?? `user-${randomUUID().slice(0, 8)}@example.test`,
    churchId: opts.churchId,
    personId: opts.personId === undefined ? randomUUID() : opts.personId,
    membershipStatus: opts.membershipStatus ?? 'Guest',
    permissions: permissionLists(opts.permissions ?? [], opts.serverAdmin),
    leaderGroupIds: opts.leaderGroupIds ?? [],
  };
  if (opts.expiresIn !== undefined && opts.expiresIn <= 0) return expiredToken(claims);
  return sign(claims, opts.expiresIn);
}

function expiredToken(claims: object): string {
  const past = Math.floor(Date.now() / 1000) - 3600;
  return createSigner({ key: TEST_SECRET, algorithm: 'HS256' })({ ...claims, iat: past - 60, exp: past });
}

/** `app.inject` with a bearer token and a JSON body. */
export function call(app: FastifyInstance, method: InjectOptions['method'], url: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
}

/** Messages in the dev mailbox of a test's DATA_DIR, oldest first. */
export function readMailbox(config: BaseConfig): Array<{ to: string; from: string; subject: string; html: string; text: string }> {
  const dir = path.join(path.resolve(config.DATA_DIR), 'mail');
  let files: string[] = [];
  try {
    files = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return files.map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
}

export interface TestApp {
  app: FastifyInstance;
  deps: ServiceDeps;
  config: BaseConfig & Record<string, unknown>;
  /** waits for queued jobs (emails, notifications) to finish */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Builds a module's app against a fresh test database with in-process jobs and a throwaway mailbox. */
export async function createTestApp(
  module: ModuleName,
  migrationsFolder: string,
  build: (config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps>) => Promise<FastifyInstance>,
  opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps> } = {},
): Promise<TestApp> {
  const config = testConfig(opts.config);
  const database = await testDatabase(module, migrationsFolder);
  const app = await build(config, { database, ...opts.overrides });
  return {
    app,
    deps: app.deps,
    config,
    drain: () => app.deps.queue.drain(),
    async close() {
      await app.close();
      await database.close();
      rmSync(config.DATA_DIR, { recursive: true, force: true });
    },
  };
}

/** A route and what calling it needs, for the shared access suite. */
export interface RouteCase {
  method: InjectOptions['method'];
  url: string;
  body?: unknown;
  /** the permission the route requires; omitted for routes any authenticated user may call */
  permission?: string;
}

/**
 * The checks every authenticated route inherits: no token → 401, a forged or expired token → 401, and
 * (for routes with a permission) a token of the same church without it → 401.
 */
export async function expectGuarded(app: FastifyInstance, route: RouteCase, churchId: string): Promise<void> {
  const noToken = await call(app, route.method, route.url, { body: route.body });
  expectStatus(noToken, 401, `${route.method} ${route.url} without a token`);
  const forged = createTokenSigner('another-secret-another-secret-another-secret')({ id: randomUUID(), email: 'x@y.z', churchId, personId: null, permissions: permissionLists('all', true), leaderGroupIds: [] });
  expectStatus(await call(app, route.method, route.url, { body: route.body, token: forged }), 401, `${route.method} ${route.url} with a forged token`);
  const expired = tokenFor({ churchId, permissions: 'all', expiresIn: -1 });
  expectStatus(await call(app, route.method, route.url, { body: route.body, token: expired }), 401, `${route.method} ${route.url} with an expired token`);
  if (route.permission) {
    const without = tokenFor({ churchId, permissions: [] });
    expectStatus(await call(app, route.method, route.url, { body: route.body, token: without }), 401, `${route.method} ${route.url} without ${route.permission}`);
  }
}

function expectStatus(res: LightMyRequestResponse, status: number, what: string) {
  if (res.statusCode !== status) throw new Error(`${what}: expected ${status}, got ${res.statusCode} ${res.body.slice(0, 300)}`);
  const body = res.json();
  if (!Array.isArray(body?.errors) || typeof body.errors[0]?.msg !== 'string') throw new Error(`${what}: body is not {errors:[{msg}]}: ${res.body.slice(0, 300)}`);
}
