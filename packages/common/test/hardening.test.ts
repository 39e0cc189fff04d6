import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { createSigner } from 'fast-jwt';
import { anyUser } from '@church/auth';
import {
  createService,
  redactError,
  redactUrl,
  signInternal,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  NONCE_HEADER,
  isDatabaseUnavailable,
  Id,
  decodeDataUrl,
  decodeImage,
  plainText,
  type ServiceDefinition,
} from '../src';
import { call, testConfig, testDatabase, tokenFor, TEST_SECRET } from '../src/testing';

const membershipMigrations = path.join(__dirname, '../../../services/membership/drizzle');
const churchId = randomUUID();

describe('the error shape and request hardening of every service', () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const database = await testDatabase('membership', membershipMigrations);
    const def: ServiceDefinition = {
      module: 'membership',
      migrationsFolder: membershipMigrations,
      routes: [
        async (a) => {
          a.post(
            '/membership/things',
            { config: { access: anyUser }, schema: { body: z.object({ firstName: z.string().min(1), serviceId: Id }) } },
            async () => ({ ok: true }),
          );
          a.get('/membership/things/:id', { config: { access: anyUser } }, async () => ({ ok: true }));
          a.post('/membership/internal/echo', { config: { access: 'internal' }, schema: { body: z.object({ n: z.number() }) } }, async (req) => req.body);
          a.get('/membership/db-away', { config: { access: 'public' } }, async () => {
            throw Object.assign(new Error('Connection terminated unexpectedly'), {});
          });
        },
      ],
    };
    app = await createService(def, testConfig(), { overrides: { database }, logger: false });
    close = async () => {
      await app.close();
      await database.close();
    };
  });
  afterAll(() => close());

  it('says which fields are required, in words a person can act on', async () => {
    const res = await call(app, 'POST', '/membership/things', { token: tokenFor({ churchId }), body: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { msg: 'firstName is required', param: 'firstName', location: 'body' },
      { msg: 'serviceId is required', param: 'serviceId', location: 'body' },
    ]);
    const wrong = await call(app, 'POST', '/membership/things', { token: tokenFor({ churchId }), body: { firstName: 'A', serviceId: 'nope' } });
    expect(wrong.json().errors).toEqual([{ msg: 'must be a UUID', param: 'serviceId', location: 'body' }]);
  });

  it('answers a body that is not JSON with param and location', async () => {
    const res = await app.inject({ method: 'POST', url: '/membership/things', headers: { authorization: `Bearer ${tokenFor({ churchId })}`, 'content-type': 'application/json' }, payload: '{bad' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ errors: [{ msg: 'Body is not valid JSON', param: 'body', location: 'body' }] });
  });

  it('answers a path parameter over the router limit with 414 in the error shape', async () => {
    const res = await call(app, 'GET', `/membership/things/${'x'.repeat(600)}`, { token: tokenFor({ churchId }) });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ errors: ['A path parameter is too long'] });
  });

  it('answers a lost database connection with 503 and Retry-After, not 500', async () => {
    const res = await call(app, 'GET', '/membership/db-away');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().errors[0]).toMatch(/database/i);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { cause: { code: '57P01' } }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
  });

  it('refuses a token without exp, and one signed with alg none', async () => {
    const noExp = createSigner({ key: TEST_SECRET, algorithm: 'HS256', noTimestamp: false })({ id: randomUUID(), churchId, personId: null, permissions: {}, leaderGroupIds: [] });
    expect((await call(app, 'GET', `/membership/things/x`, { token: noExp })).statusCode).toBe(401);
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ id: 'u', churchId, permissions: {}, leaderGroupIds: [], exp: 9999999999, iat: 1 })).toString('base64url')}.`;
    expect((await call(app, 'GET', `/membership/things/x`, { token: none })).statusCode).toBe(401);
  });

  it('accepts a signed internal request once: a replay inside the window is refused', async () => {
    const body = JSON.stringify({ n: 1 });
    const ts = String(Date.now());
    const nonce = randomUUID();
    const headers = { 'content-type': 'application/json', [TIMESTAMP_HEADER]: ts, [NONCE_HEADER]: nonce, [SIGNATURE_HEADER]: signInternal(TEST_SECRET, 'POST', '/membership/internal/echo', ts, body, nonce) };
    const first = await app.inject({ method: 'POST', url: '/membership/internal/echo', headers, payload: body });
    expect(first.statusCode).toBe(200);
    const replay = await app.inject({ method: 'POST', url: '/membership/internal/echo', headers, payload: body });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().errors[0]).toMatch(/replay/i);
  });

  it('runs the read-only internal query for reporting, and refuses writes in it', async () => {
    const sign = (payload: string) => {
      const ts = String(Date.now());
      const nonce = randomUUID();
      return { 'content-type': 'application/json', [TIMESTAMP_HEADER]: ts, [NONCE_HEADER]: nonce, [SIGNATURE_HEADER]: signInternal(TEST_SECRET, 'POST', '/membership/internal/query', ts, payload, nonce) };
    };
    const read = JSON.stringify({ sql: 'select $1::int + 1 as n, $2::text as t', params: [41, 'x'] });
    const res = await app.inject({ method: 'POST', url: '/membership/internal/query', headers: sign(read), payload: read });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ rows: [{ n: 42, t: 'x' }] });
    const write = JSON.stringify({ sql: 'create table should_not_exist (id int)', params: [] });
    const refused = await app.inject({ method: 'POST', url: '/membership/internal/query', headers: sign(write), payload: write });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.statusCode).not.toBe(200);
    const check = JSON.stringify({ sql: "select to_regclass('should_not_exist')::text as t", params: [] });
    const after = await app.inject({ method: 'POST', url: '/membership/internal/query', headers: sign(check), payload: check });
    expect(after.json()).toEqual({ rows: [{ t: null }] });
    // the time limit holds on PostgreSQL (PGlite, single-threaded WASM, has no timer to cancel a statement): a
    // statement past it is cancelled, and the next query is served
    if (app.deps.database.kind === 'postgres') {
      const slow = JSON.stringify({ sql: 'select pg_sleep(2) as s', params: [], timeoutMs: 100 });
      const cancelled = await app.inject({ method: 'POST', url: '/membership/internal/query', headers: sign(slow), payload: slow });
      expect(cancelled.statusCode).not.toBe(200);
    }
    expect((await app.inject({ method: 'POST', url: '/membership/internal/query', headers: sign(read), payload: read })).json()).toEqual({ rows: [{ n: 42, t: 'x' }] });
    // unsigned: refused
    expect((await app.inject({ method: 'POST', url: '/membership/internal/query', headers: { 'content-type': 'application/json' }, payload: read })).statusCode).toBe(401);
  });
});

describe('log redaction', () => {
  it('keeps personal and secret query values out of logged URLs', () => {
    expect(redactUrl('/membership/people/search?email=ada%40example.org&term=ada')).toBe('/membership/people/search?email=[redacted]&term=ada');
    expect(redactUrl('/x?token=abc&code=1234&page=2')).toBe('/x?token=[redacted]&code=[redacted]&page=2');
    expect(redactUrl('/x')).toBe('/x');
  });

  it("leaves a failed query's bound parameters and PostgreSQL's echoed values out of logged errors", () => {
    const err = Object.assign(new Error('Failed query: insert into users (email, password) values ($1, $2)\nparams: ada@example.org,$argon2id$v=19$secret'), {
      cause: Object.assign(new Error('duplicate key value'), { code: '23505', detail: 'Key (email)=(ada@example.org) already exists.' }),
    });
    err.stack = `Error: ${err.message}\n    at somewhere (file.ts:1:1)`;
    const logged = JSON.stringify(redactError(err));
    expect(logged).not.toContain('ada@example.org');
    expect(logged).not.toContain('argon2id');
    expect(logged).toContain('insert into users');
    expect(logged).toContain('[redacted]');
  });
});

describe('plain-text emails', () => {
  it('keeps paragraphs, decodes entities and puts each link on a line of its own, whole', async () => {
    const link = 'https://app.example/login?ref=mail&lang=en&auth=g7lU';
    const text = plainText(`<p>Hello Ada,</p><p>Sign in: <a href="${link.replace(/&/g, '&amp;')}">${link.replace(/&/g, '&amp;')}</a>If you did not ask, ignore this.</p><p>Tom &amp; Jerry</p>`);
    const lines = text.split('\n');
    expect(lines).toContain(link);
    expect(new URL(lines.find((l) => l.startsWith('https://'))!).searchParams.get('auth')).toBe('g7lU');
    expect(text).toContain('Hello Ada,\n\nSign in:');
    expect(text).toContain('Tom & Jerry');
    expect(text).not.toMatch(/&amp;|<p>/);
  });
});

describe('stored images and files', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  it('accepts only raster images by their bytes, typed from the bytes', async () => {
    expect(decodeImage(`data:image/html;base64,${png.toString('base64')}`, 'photo')).toMatchObject({ contentType: 'image/png', extension: 'png' });
    const html = Buffer.from('<html><script>alert(1)</script></html>').toString('base64');
    for (const type of ['image/html', 'image/svg+xml', 'image/x-html', 'image/png']) {
      expect(() => decodeImage(`data:${type};base64,${html}`, 'photo')).toThrow(/PNG, JPEG, GIF or WebP/);
    }
    expect(() => decodeImage(`data:image/png;base64,${Buffer.concat([png, Buffer.alloc(100)]).toString('base64')}`, 'photo', 50)).toThrow(/larger/);
  });

  it('never stores a file under an extension a browser would run', async () => {
    expect(decodeDataUrl('data:text/html;base64,PGI+')).toMatchObject({ extension: 'bin', contentType: 'application/octet-stream' });
    expect(decodeDataUrl('data:image/svg+xml;base64,PGI+')).toMatchObject({ extension: 'bin' });
    expect(decodeDataUrl('data:application/pdf;base64,JVBE')).toMatchObject({ extension: 'pdf', contentType: 'application/pdf' });
  });
});
