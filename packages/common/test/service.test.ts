import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { requires, anyUser } from '@church/auth';
import { sql } from 'drizzle-orm';
import { createService, createInternalClient, badRequest, IdParams, rowsOf, MAX_STATEMENT_PARAMS, type ModuleName, type ServiceDefinition } from '../src';
import { call, expectRoutesGuarded, testConfig, testDatabase, tokenFor, TEST_SECRET } from '../src/testing';

const churchId = '11111111-1111-4111-8111-111111111111';
const membershipMigrations = path.join(__dirname, '../../../services/membership/drizzle');

describe('createService', () => {
  let exchanges = 0;
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const database = await testDatabase('membership', membershipMigrations);
    const def: ServiceDefinition = {
      module: 'membership',
      migrationsFolder: membershipMigrations,
      routes: [
        async (app) => {
          app.get('/membership/things/:id', { config: { access: requires('People.View') }, schema: { params: IdParams } }, async (req) => ({ id: (req.params as { id: string }).id }));
          app.post(
            '/membership/things',
            { config: { access: anyUser }, schema: { body: z.object({ name: z.string().min(2), age: z.number().int().optional() }), response: { 200: z.object({ name: z.string() }) } } },
            async (req) => ({ ...(req.body as object), secret: 'never leaves' }),
          );
          app.post('/membership/internal/echo', { config: { access: 'internal' }, schema: { body: z.object({ n: z.number() }) } }, async (req) => req.body);
          // One statement with a value per number asked for: what a caller could make of an unbounded list.
          app.get('/membership/many/:n', { config: { access: 'public' } }, async (req) => {
            const n = Number((req.params as { n: string }).n);
            const values = Array.from({ length: n }, (_, i) => i);
            const [row] = rowsOf<{ n: number }>(await app.deps.db.execute(sql`select count(*)::int as n from (values ${sql.join(values.map((v) => sql`(${v}::int)`), sql`, `)}) v(x)`));
            return row;
          });
          app.get('/membership/boom', { config: { access: 'public' } }, async () => {
            throw badRequest('term', 'term is required', 'query');
          });
          // what the driver throws when PostgreSQL breaks a deadlock between two requests
          app.get('/membership/deadlock', { config: { access: 'public' } }, async () => {
            throw Object.assign(new Error('Failed query: update ...'), { cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }) });
          });
        },
      ],
      // API keys: what membership would mint for the one key it knows (counted, to see the exchange kept)
      apiKeySource: () => async (key) => {
        exchanges++;
        if (key !== 'cak_known.secret') throw new Error('Invalid API key');
        return { token: tokenFor({ churchId: randomUUID(), permissions: ['People.View'] }), expiresAt: new Date(Date.now() + 3_600_000) };
      },
    };
    app = await createService(def, testConfig({ BODY_LIMIT: '2048' }), { overrides: { database }, logger: false });
    close = async () => {
      await app.close();
      await database.close();
    };
  });
  afterAll(() => close());

  it('takes an API key as the bearer token, exchanging it once for the token it stands for', async () => {
    const before = exchanges;
    for (let i = 0; i < 3; i++) expect((await call(app, 'GET', `/membership/things/${randomUUID()}`, { token: 'cak_known.secret' })).statusCode).toBe(200);
    expect(exchanges - before).toBe(1);
    const refused = await call(app, 'GET', `/membership/things/${randomUUID()}`, { token: 'cak_unknown.secret' });
    expect([refused.statusCode, refused.json().errors[0]]).toEqual([401, 'Invalid or expired token']);
  });

  it('answers health, readiness, metrics and its OpenAPI document', async () => {
    expect((await call(app, 'GET', '/health')).json()).toEqual({ status: 'ok', service: 'membership' });
    expect((await call(app, 'GET', '/ready')).statusCode).toBe(200);
    const metrics = await call(app, 'GET', '/metrics');
    expect(metrics.body).toContain('http_request_duration_seconds');
    // The event loop's lag and the job outbox's depth, for alerts on a stalled process or a backlog.
    expect(metrics.body).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(metrics.body).toMatch(/job_outbox_jobs\{state="pending"\} 0/);
    const doc = (await call(app, 'GET', '/membership/docs/json')).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/membership/things/{id}', '/membership/things']));
  });

  it('refuses a statement with more values than the database takes with a 400, and goes on serving', async () => {
    expect((await call(app, 'GET', '/membership/many/1000')).json()).toEqual({ n: 1000 });
    const refused = await call(app, 'GET', `/membership/many/${MAX_STATEMENT_PARAMS + 1}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0]).toMatchObject({ param: 'body', msg: expect.stringContaining(`at most ${MAX_STATEMENT_PARAMS}`) });
    // The engine never saw it: the next statement answers rows, not an empty result.
    expect((await call(app, 'GET', '/membership/many/3')).json()).toEqual({ n: 3 });
    expect((await call(app, 'GET', '/health')).statusCode).toBe(200);
  });

  it('keeps Fastify’s wording for unknown routes inside the error body', async () => {
    const res = await call(app, 'GET', '/membership/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ errors: ['Route GET:/membership/nothing-here not found'], message: 'Route GET:/membership/nothing-here not found' });
  });

  it('matches paths case-insensitively and with a trailing slash', async () => {
    const token = tokenFor({ churchId, permissions: ['People.View'] });
    const id = '22222222-2222-4222-8222-222222222222';
    expect((await call(app, 'GET', `/Membership/Things/${id}/`, { token })).json()).toEqual({ id });
  });

  it('answers 401 without a token, with a bad token, and without the permission', async () => {
    const url = '/membership/things/22222222-2222-4222-8222-222222222222';
    expect((await call(app, 'GET', url)).statusCode).toBe(401);
    expect((await call(app, 'GET', url, { token: 'not.a.token' })).statusCode).toBe(401);
    const res = await call(app, 'GET', url, { token: tokenFor({ churchId, permissions: ['People.Edit'] }) });
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0]).toBe('Missing permission: People.View');
    expect((await call(app, 'GET', url, { token: tokenFor({ churchId, permissions: [], serverAdmin: true }) })).statusCode).toBe(200);
  });

  it('validates params, bodies and JSON with the spec’s error shape', async () => {
    const token = tokenFor({ churchId });
    const badId = await call(app, 'GET', '/membership/things/not-a-uuid', { token: tokenFor({ churchId, permissions: ['People.View'] }) });
    expect(badId.statusCode).toBe(400);
    expect(badId.json().errors[0]).toMatchObject({ param: 'id', location: 'params' });
    const badBody = await call(app, 'POST', '/membership/things', { token, body: { name: 'x', age: 'old' } });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json().errors.map((e: { param: string }) => e.param).sort()).toEqual(['age', 'name']);
    const malformed = await app.inject({ method: 'POST', url: '/membership/things', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: '{"name":' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors[0].msg).toBe('Body is not valid JSON');
    const thrown = await call(app, 'GET', '/membership/boom');
    expect(thrown.json()).toEqual({ errors: [{ msg: 'term is required', param: 'term', location: 'query' }] });
  });

  it('serializes only the fields the response schema declares', async () => {
    const res = await call(app, 'POST', '/membership/things', { token: tokenFor({ churchId }), body: { name: 'Ann' } });
    expect(res.json()).toEqual({ name: 'Ann' });
  });

  it('accepts internal calls signed by the internal client and refuses unsigned or tampered ones', async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const client = createInternalClient(TEST_SECRET, () => ({ membership: base }) as Record<ModuleName, string>);
    expect(await client.post('membership', '/membership/internal/echo', { n: 7 })).toEqual({ n: 7 });
    const unsigned = await call(app, 'POST', '/membership/internal/echo', { body: { n: 7 } });
    expect(unsigned.statusCode).toBe(401);
    const wrongSecret = createInternalClient('x'.repeat(40), () => ({ membership: base }) as Record<ModuleName, string>);
    await expect(wrongSecret.post('membership', '/membership/internal/echo', { n: 7 })).rejects.toMatchObject({ statusCode: 401 });
  });

  it('keeps a revalidated answer: sends If-None-Match with its ETag and reuses the copy on 304', async () => {
    const seen: Array<string | undefined> = [];
    let version = 1;
    const server = createServer((req, res) => {
      seen.push(req.headers['if-none-match']);
      const etag = `"v${version}"`;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304).end();
      res.writeHead(200, { 'content-type': 'application/json', ...(req.url!.includes('tagless') ? {} : { etag }) }).end(JSON.stringify({ version }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const client = createInternalClient(TEST_SECRET, () => ({ membership: base }) as Record<ModuleName, string>);
    try {
      const first = await client.post('membership', '/roster', { groupId: 'g' }, { revalidate: true });
      expect(first).toEqual({ version: 1 });
      expect(await client.post('membership', '/roster', { groupId: 'g' }, { revalidate: true })).toBe(first);
      version = 2;
      expect(await client.post('membership', '/roster', { groupId: 'g' }, { revalidate: true })).toEqual({ version: 2 });
      // Another body is another answer; without revalidate, or without an ETag, nothing is kept or sent.
      await client.post('membership', '/roster', { groupId: 'h' }, { revalidate: true });
      await client.post('membership', '/roster', { groupId: 'g' });
      await client.post('membership', '/tagless', {}, { revalidate: true });
      await client.post('membership', '/tagless', {}, { revalidate: true });
      expect(seen).toEqual([undefined, '"v1"', '"v1"', undefined, undefined, undefined, undefined]);
    } finally {
      await client.close?.();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers an oversized body with 413 in the error shape', async () => {
    const res = await call(app, 'POST', '/membership/things', { token: tokenFor({ churchId }), body: { name: 'x'.repeat(5000) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ errors: ['Body is too large'] });
  });

  it("names, in the access suite, every route whose success answer declares no schema", async () => {
    const walk = expectRoutesGuarded(app).then(() => '', (err: Error) => err.message);
    const message = await walk;
    expect(message).toMatch(/GET \/membership\/things\/\{id\} declares no response schema/);
    expect(message).toMatch(/GET \/membership\/boom declares no response schema/);
    // the route that declares its answer is not named
    expect(message).not.toMatch(/POST \/membership\/things declares/);
  });

  it('answers a deadlock PostgreSQL broke up as a 409 to try again, never a 500', async () => {
    const res = await call(app, 'GET', '/membership/deadlock');
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().errors[0]).toMatch(/at the same time.*try again/);
  });

  it('refuses to start when a route declares no access', async () => {
    const def: ServiceDefinition = { module: 'membership', migrationsFolder: membershipMigrations, routes: [async (a) => void a.get('/membership/open', async () => ({}))] };
    const database = await testDatabase('membership', membershipMigrations);
    await expect(createService(def, testConfig(), { overrides: { database }, logger: false })).rejects.toThrow(/declares no access/);
    await database.close();
  });
});
