import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, InjectOptions, LightMyRequestResponse } from 'fastify';
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
import type { RegisteredRoute, ServiceDeps } from './service';
import { HttpError } from './errors';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signInternal, type InternalClient } from './internal';
import { INTERNAL_CONTRACTS, type PersonFacts } from './contracts/index';
import { z } from 'zod';
export { readOutbox } from './providers';
import { foreignIds } from './reference-walk';
export { expectForeignReferencesRefused, foreignId, NOT_REFERENCES, type ReferenceWalkReport } from './reference-walk';

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
    // A test app alone has no membership to ask; revocation tests turn it on with a source of their own.
    REVOCATION_POLL_MS: '0',
    // A job that fails in a test is retried at once, so `drain` does not wait out production backoffs.
    JOB_RETRY_MAX_DELAY_MS: '20',
    ...overrides,
  });
}

/**
 * A fresh database for one test file: a new PostgreSQL database when TEST_DATABASE_URL is set (CI does),
 * an in-memory PGlite otherwise. Migrations are applied; `close()` drops it.
 */
export async function testDatabase(module: ModuleName, migrationsFolder: string | readonly string[]): Promise<Database> {
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
  if (permissions !== 'all') {
    for (const p of permissions) {
      const key = normalizePermission(p);
      // `Settings.Edit` is a permission of several APIs (giving's, content's, membership's): a role that holds it
      // in the permission list of each, as a test token that names it does.
      const apis = PERMISSIONS.filter((d) => permissionKey(d.contentType, d.action) === key).map((d) => d.apiName);
      if (new Set(apis).size > 1) for (const api of apis) add(api, key);
      else add(apiForPermission(key, 'MembershipApi'), key);
    }
  }
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
  migrationsFolder: string | readonly string[],
  build: (config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps>) => Promise<FastifyInstance>,
  opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps> } = {},
): Promise<TestApp> {
  const config = testConfig(opts.config);
  const database = await testDatabase(module, migrationsFolder);
  const app = await build(config, { database, ...opts.overrides });
  app.deps.internal = ownedByDefault(app.deps.internal);
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
  if (!Array.isArray(body?.errors) || typeof body.errors[0] !== 'string') throw new Error(`${what}: body is not {errors:[message]}: ${res.body.slice(0, 300)}`);
}

/** A request a fake provider received. */
export interface FakeRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** the body parsed as JSON or as a form, when it is one */
  json: unknown;
  form: URLSearchParams;
}

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** an object is sent as JSON */
  body?: unknown;
  /** wait this long before answering (timeouts) */
  delayMs?: number;
}

/**
 * A fake provider on loopback that speaks the provider's HTTP API: `answer` maps each request to a reply (write
 * it from the request and response shapes of the provider's API reference). Point the real SDK's base URL at
 * `url`; `seen` records every request for assertions.
 */
export async function fakeServer(answer: (req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>) {
  const seen: FakeRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const entry: FakeRequest = { method: req.method ?? 'GET', url: req.url ?? '/', path: url.pathname, query: url.searchParams, headers: req.headers, body, json, form: new URLSearchParams(body) };
      seen.push(entry);
      try {
        const out = await answer(entry);
        if (out.delayMs) await new Promise((r) => setTimeout(r, out.delayMs));
        const isText = typeof out.body === 'string' || out.body === undefined;
        res.writeHead(out.status ?? 200, { ...(isText ? {} : { 'content-type': 'application/json' }), ...out.headers });
        res.end(isText ? ((out.body as string | undefined) ?? '') : JSON.stringify(out.body));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(err) }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface RouteWalkOptions {
  /** the church the walk's tokens belong to (default: a fresh one) */
  churchId?: string;
  /** values for path parameters by name (default: a fresh UUID for names ending in `id`/`Id`, else `x`) */
  params?: Record<string, string>;
  /**
   * routes (`'GET /membership/people/:id'`) whose rule a token without permissions may pass on purpose (own
   * record, any member of the church): the walk skips only the "without permission" check for them
   */
  openToAnyUser?: string[];
}

export interface RouteWalkReport {
  /** authenticated routes whose token checks were run */
  guarded: number;
  /** internal routes refused unsigned */
  internal: number;
  /** public routes (not walked) */
  public: number;
  /** routes of the module (public, internal and authenticated) */
  total: number;
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

type DocOperation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

/**
 * The documented routes whose success answer declares no schema (JSON, text or binary): the response schema is what
 * filters and serializes what leaves a route, so none may go without one.
 */
function routesWithoutAnswerSchema(app: FastifyInstance): string[] {
  const doc = (app as unknown as { swagger(): { paths?: Record<string, Record<string, DocOperation>> } }).swagger();
  const missing: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const answers = Object.entries(op.responses ?? {}).filter(([status]) => /^2/.test(status));
      const declared = answers.some(([status, answer]) => status === '204' || Object.values(answer.content ?? {}).some((c) => c.schema !== undefined));
      if (!declared) missing.push(`${method.toUpperCase()} ${path} declares no response schema for its success answer`);
    }
  }
  return missing;
}

/**
 * The access suite every module runs over its whole route table (`app.routeList`, so a route added later is
 * walked without touching the test): an authenticated route answers 401 in the error shape with no token, a
 * forged token, an expired one, an `alg: none` one, and (unless its rule is open to any user) a valid token of
 * the church without permissions; and a token with every permission of another church never makes it fail
 * with a 500. Internal routes refuse an unsigned call with 401. Every documented route declares the schema of its
 * success answer.
 */
export async function expectRoutesGuarded(app: FastifyInstance, opts: RouteWalkOptions = {}): Promise<RouteWalkReport> {
  const churchId = opts.churchId ?? randomUUID();
  const report: RouteWalkReport = { guarded: 0, internal: 0, public: 0, total: 0 };
  const open = new Set(opts.openToAnyUser ?? []);
  const failures: string[] = [];
  const forged = createTokenSigner('another-secret-another-secret-another-secret')({ id: randomUUID(), email: 'x@y.z', churchId, personId: null, permissions: permissionLists('all', true), leaderGroupIds: [] });
  const now = Math.floor(Date.now() / 1000);
  const algNone = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ id: randomUUID(), churchId, personId: null, permissions: permissionLists('all', true), leaderGroupIds: [], iat: now, exp: now + 3600 })}.`;
  const expired = tokenFor({ churchId, permissions: 'all', expiresIn: -1 });
  const bare = tokenFor({ churchId, permissions: [], membershipStatus: 'Guest', personId: randomUUID() });
  const otherChurch = tokenFor({ churchId: randomUUID(), permissions: 'all', serverAdmin: false, membershipStatus: 'Staff' });
  // Two signed-in callers who hold little: a guest of the church (its Everyone role: People.Edit Self and
  // Attendance.Checkin, a Guest person) and a user without any church (the token login gives before a church is
  // chosen or added: no person, no permission, the server's placeholder church).
  const guestClaims = { churchId, personId: randomUUID(), membershipStatus: 'Guest', permissions: ['People.Edit Self', 'Attendance.Checkin'] };
  const guest = tokenFor(guestClaims);
  const churchless = tokenFor({ churchId: NO_CHURCH_ID, personId: null, permissions: [] });
  const routes: RegisteredRoute[] = app.routeList.filter((r) => !['/health', '/ready', '/metrics'].includes(r.url) && !r.url.endsWith('/docs/json'));
  for (const route of routes) {
    report.total++;
    const url = route.url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => opts.params?.[name] ?? (/id$/i.test(name) ? randomUUID() : 'x'));
    const body = ['POST', 'PATCH', 'PUT'].includes(route.method) ? {} : undefined;
    const method = route.method as InjectOptions['method'];
    const key = `${route.method} ${route.url}`;
    const expect401 = async (token: string | undefined, what: string) => {
      const res = await call(app, method, url, { token, body });
      try {
        expectStatus(res, 401, `${key} ${what}`);
      } catch (err) {
        failures.push((err as Error).message);
      }
    };
    if (route.access === 'public') {
      report.public++;
      continue;
    }
    if (route.access === 'internal') {
      report.internal++;
      await expect401(undefined, 'unsigned (internal)');
      continue;
    }
    report.guarded++;
    await expect401(undefined, 'without a token');
    await expect401(forged, 'with a forged token');
    await expect401(expired, 'with an expired token');
    await expect401(algNone, 'with an alg:none token');
    if (route.access.text !== '—' && !open.has(key)) await expect401(bare, `without ${route.access.text}`);
    const foreign = await call(app, method, url, { token: otherChurch, body });
    // 502/503 name a downstream or database failure (a test app alone has no other modules); 500 is a bug.
    if (foreign.statusCode === 500 || foreign.statusCode > 503) failures.push(`${key} from another church: ${foreign.statusCode} ${foreign.body.slice(0, 200)}`);
    // The guest and the church-less user: refused (401) where the route's rule refuses them, never a 500 anywhere.
    for (const [token, what] of [
      [guest, 'as a guest'],
      [churchless, 'as a user without a church'],
    ] as const) {
      const claims = app.deps.verifyToken(token);
      const fakeRequest = { params: paramsOf(route.url, url), query: {}, body, headers: {}, auth: claims } as unknown as FastifyRequest;
      const allowed = open.has(key) || (await Promise.resolve(route.access.check(fakeRequest, claims, app.deps.api)).catch(() => true));
      if (!allowed) await expect401(token, what);
      else {
        const res = await call(app, method, url, { token, body });
        if (res.statusCode === 500 || res.statusCode > 503) failures.push(`${key} ${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
  }
  failures.push(...routesWithoutAnswerSchema(app));
  if (failures.length) throw new Error(`${failures.length} access failures:\n${failures.join('\n')}`);
  return report;
}

/** The church id of a token minted before any church is chosen (membership's placeholder for server-wide roles). */
const NO_CHURCH_ID = '00000000-0000-0000-0000-000000000000';

/** The path parameters of a route pattern as filled in `url`. */
function paramsOf(pattern: string, url: string): Record<string, string> {
  const names = pattern.split('/');
  const values = url.split('/');
  const out: Record<string, string> = {};
  names.forEach((part, i) => {
    if (part.startsWith(':')) out[part.slice(1)] = values[i] ?? '';
  });
  return out;
}

/** What a module's tests run against: its app on a fresh database, and the fakes started for it. */
export interface ModuleOptions<X extends object> {
  module: ModuleName;
  migrations: string | readonly string[];
  build: (config: never, overrides: Partial<ServiceDeps>) => Promise<FastifyInstance>;
  config?: Record<string, string>;
  overrides?: Partial<ServiceDeps>;
  /**
   * Starts what the app talks to before the app (a provider's loopback server, another module's contract fake):
   * its `config` and `overrides` join the app's, the rest is returned with the app, and `close` runs after it.
   */
  fakes?: () => Promise<X & { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; close?: () => Promise<void> }>;
}

/**
 * The one lifecycle of a module's tests: starts the module's app (and its fakes) before a test file's tests and
 * closes both after; the returned object reads through to them. Each service's `test/setup.ts` wraps it once with
 * its migrations, build and usual fakes (`useGiving`, `useContent`, ...).
 */
export function useModule<X extends object = object>(opts: ModuleOptions<X>): TestApp & Omit<X, 'config' | 'overrides' | 'close'> {
  let current: (TestApp & X) | undefined;
  let fakes: (X & { config?: Record<string, string>; overrides?: Partial<ServiceDeps>; close?: () => Promise<void> }) | undefined;
  beforeAll(async () => {
    fakes = opts.fakes ? await opts.fakes() : undefined;
    const t = await createTestApp(opts.module, opts.migrations, opts.build as never, {
      config: { ...fakes?.config, ...opts.config },
      overrides: { ...fakes?.overrides, ...opts.overrides },
    });
    const { config: _config, overrides: _overrides, close: _close, ...started } = fakes ?? ({} as NonNullable<typeof fakes>);
    current = Object.assign(t, started) as TestApp & X;
  });
  afterAll(async () => {
    await current?.close();
    await fakes?.close?.();
  });
  return new Proxy({} as TestApp & X, { get: (_target, key) => current![key as keyof (TestApp & X)] });
}

type AppOptions = { config?: Record<string, string>; overrides?: Partial<ServiceDeps> };

/** `useModule` with options read when the app starts (the older shape; new setups call `useModule`). */
export function useApp(
  module: ModuleName,
  migrationsFolder: string | readonly string[],
  build: (config: never, overrides: Partial<ServiceDeps>) => Promise<FastifyInstance>,
  opts: AppOptions | (() => AppOptions) = {},
): TestApp {
  return useModule({ module, migrations: migrationsFolder, build, fakes: async () => (typeof opts === 'function' ? opts() : opts) });
}

/**
 * A church for one test, for modules that keep no church table: a fresh id and a person, `token()` for them
 * (`token(['Donations.View'])`, `token('all')`, or options such as `leaderGroupIds`), `tokenOf(personId)` for
 * someone else of the church.
 */
export function makeChurch() {
  const churchId = randomUUID();
  const personId = randomUUID();
  return {
    churchId,
    personId,
    token: (permissions: TokenOptions['permissions'] = [], extra: Partial<TokenOptions> = {}) => tokenFor({ churchId, personId, permissions, ...extra }),
    tokenOf: (otherPersonId: string, permissions: TokenOptions['permissions'] = []) => tokenFor({ churchId, personId: otherPersonId, permissions }),
  };
}

/**
 * A person as membership's `peopleFacts` contract answers them, for fakes of membership: a Member of no household
 * or group, named after the id unless `facts` says otherwise.
 */
export function personFacts(facts: Partial<PersonFacts> & { id?: string } = {}): PersonFacts {
  const id = facts.id ?? randomUUID();
  return {
    id,
    firstName: 'First',
    lastName: id.slice(0, 8),
    displayName: `First ${id.slice(0, 8)}`,
    email: null,
    mobilePhone: null,
    optedOut: false,
    birthDate: null,
    anniversary: null,
    gender: null,
    maritalStatus: null,
    membershipStatus: 'Member',
    campusId: null,
    householdId: null,
    groupIds: [],
    leaderGroupIds: [],
    ...facts,
  };
}

const ownedExceptForeign = (body: { ids: string[] }) => ({ ids: body.ids.filter((id) => !foreignIds.has(id)) });
const isOwnedCheck = (path: string) => /^\/[a-z]+\/internal\/owned$/.test(path);

/**
 * A test app's internal client: another module's reference check that finds no module to ask (a test app stands
 * alone) owns every id but those the reference walk hands out as another church's; every other call goes on.
 */
function ownedByDefault(client: InternalClient): InternalClient {
  const answer = async <T>(path: string, body: unknown, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (isOwnedCheck(path) && !(err instanceof Error && /transaction is open/.test(err.message))) return ownedExceptForeign(body as { ids: string[] }) as T;
      throw err;
    }
  };
  return {
    ...client,
    request: (module, method, path, body, opts) => answer(path, body, () => client.request(module, method, path, body, opts)),
    get: (module, path, opts) => answer(path, undefined, () => client.get(module, path, opts)),
    post: (module, path, body, opts) => answer(path, body, () => client.post(module, path, body, opts)),
  };
}

/** A call a fake internal client received. */
export interface InternalCall {
  module: ModuleName;
  method: string;
  path: string;
  body?: unknown;
}

/** A server-to-server POST to `app`, signed as another module's internal client signs it (`secret`: a wrong one to refuse). */
export function signedCall(app: FastifyInstance, url: string, body: unknown, secret = TEST_SECRET): Promise<LightMyRequestResponse> {
  const payload = JSON.stringify(body);
  const timestamp = String(Date.now());
  return app.inject({
    method: 'POST',
    url,
    payload,
    headers: { 'content-type': 'application/json', [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signInternal(secret, 'POST', url, timestamp, payload) },
  });
}

class OffContract {
  constructor(readonly answer: unknown) {}
}

/**
 * An answer a `fakeInternal` route sends unchecked, on purpose: for the tests of what a caller does when another
 * module answers a shape its contract refuses (a 502 naming it).
 */
export const offContract = (answer: unknown): OffContract => new OffContract(answer);

/** A fake's input or answer that its contract refuses fails the test: a fake may not drift from the module it stands for. */
function checkedByContract(what: string, schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} breaks its contract: ${z.prettifyError(parsed.error)}`);
}

/**
 * A fake internal client for `overrides.internal`: answers from `routes` (keyed `POST /path`, given the body),
 * records every call, and answers 404 for a route it does not know. A route with a contract
 * (`INTERNAL_CONTRACTS`) has the fake's answer checked against it. Answers are copied, so no caller can
 * change what the next one gets. Another module's reference check (`POST /<module>/internal/owned`), unless
 * `routes` answers it, owns every id but those the reference walk hands out as another church's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function fakeInternal(routes: Record<string, (body: any) => unknown>): InternalClient & { calls: InternalCall[] } {
  const calls: InternalCall[] = [];
  const request = async <T>(module: ModuleName, method: string, path: string, body?: unknown): Promise<T> => {
    calls.push({ module, method, path, body });
    const handler = routes[`${method} ${path}`] ?? (isOwnedCheck(path) ? ownedExceptForeign : undefined);
    if (!handler) throw new HttpError(404, [{ msg: `no fake for ${method} ${path}` }]);
    const contract = INTERNAL_CONTRACTS.get(`${module} ${path}`);
    const answer = await handler(body);
    if (answer instanceof OffContract) return structuredClone(answer.answer) as T;
    if (contract) checkedByContract(`the fake of ${path}`, contract.answer, answer);
    return structuredClone(answer) as T;
  };
  return { calls, request, get: (module, path) => request(module, 'GET', path), post: (module, path, body) => request(module, 'POST', path, body) };
}
