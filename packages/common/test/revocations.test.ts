import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { createRevocations, createService, type Database, type RevocationEntry, type ServiceDefinition } from '../src';
import { call, testConfig, testDatabase, tokenFor } from '../src/testing';

const silent = { warn() {} };
const migrations = path.join(__dirname, '../../../services/attendance/drizzle');

describe('token revocation', () => {
  let app: FastifyInstance;
  let database: Database;
  const written: RevocationEntry[] = [];
  let asked = 0;
  const source = async (since: number) => {
    asked++;
    return { entries: written.filter((e) => e.at >= since), now: Date.now() };
  };

  beforeAll(async () => {
    database = await testDatabase('attendance', migrations);
    const def: ServiceDefinition = {
      module: 'attendance',
      migrationsFolder: migrations,
      routes: [async (a) => void a.get('/attendance/me', { config: { access: anyUser } }, async (req) => ({ id: req.auth.id }))],
    };
    const revocations = await createRevocations({ source, pollMs: 0, log: silent });
    app = await createService(def, testConfig(), { overrides: { database, revocations }, logger: false });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('refuses tokens minted before a stamp of their user, or of their user in their church, and no others', async () => {
    const churchId = randomUUID();
    const userId = randomUUID();
    const old = tokenFor({ churchId, userId });
    const otherChurch = tokenFor({ churchId: randomUUID(), userId });
    const someoneElse = tokenFor({ churchId, userId: randomUUID() });
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(app, 'GET', '/attendance/me', { token: old })).statusCode).toBe(200);

    // removed from this church: tokens for it are refused, tokens for another church still work
    written.push({ userId, churchId, at: Date.now() });
    await app.deps.revocations.refresh();
    expect((await call(app, 'GET', '/attendance/me', { token: old })).statusCode).toBe(401);
    expect((await call(app, 'GET', '/attendance/me', { token: otherChurch })).statusCode).toBe(200);
    expect((await call(app, 'GET', '/attendance/me', { token: someoneElse })).statusCode).toBe(200);
    // a token minted after the stamp (a new login) works
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(app, 'GET', '/attendance/me', { token: tokenFor({ churchId, userId }) })).statusCode).toBe(200);

    // password changed: every token of the user from before is refused
    written.push({ userId, churchId: null, at: Date.now() });
    await app.deps.revocations.refresh();
    expect((await call(app, 'GET', '/attendance/me', { token: otherChurch })).statusCode).toBe(401);
    expect(asked).toBeGreaterThanOrEqual(2);
  });

  it('refuses an app’s tokens once its grant is revoked, and no other token of the user', async () => {
    const churchId = randomUUID();
    const userId = randomUUID();
    const gid = randomUUID();
    const base = { id: userId, email: 'a@b.c', churchId, personId: null, permissions: {}, leaderGroupIds: [] };
    const appToken = app.deps.signToken({ ...base, scope: 'people:read', gid });
    const ownToken = app.deps.signToken(base);
    await new Promise((r) => setTimeout(r, 5));
    written.push({ userId: gid, churchId: null, at: Date.now() });
    await app.deps.revocations.refresh();
    expect((await call(app, 'GET', '/attendance/me', { token: appToken })).statusCode).toBe(401);
    expect((await call(app, 'GET', '/attendance/me', { token: ownToken })).statusCode).toBe(200);
  });

  it('hears a stamp published by another service of the same process at once, without polling', async () => {
    // The embedded fleet: membership publishes after deleting an API key or changing roles; attendance, giving
    // and messaging (their own Revocations, polling off here) refuse the old token on their next request.
    const membership = await createRevocations({ source, pollMs: 0, log: silent });
    try {
      const churchId = randomUUID();
      const userId = randomUUID();
      const token = tokenFor({ churchId, userId });
      expect((await call(app, 'GET', '/attendance/me', { token })).statusCode).toBe(200);
      const before = asked;
      await membership.publish([{ userId, churchId, at: Date.now() + 1000 }]);
      expect((await call(app, 'GET', '/attendance/me', { token })).statusCode).toBe(401);
      expect(asked).toBe(before);
    } finally {
      await membership.close();
    }
  });

  it('keeps the last known stamps when the source fails', async () => {
    const userId = randomUUID();
    const failing = await createRevocations({
      source: async () => {
        throw new Error('membership is down');
      },
      pollMs: 0,
      log: silent,
    });
    failing.apply([{ userId, churchId: null, at: Date.now() + 1000 }]);
    await failing.refresh();
    expect(failing.isRevoked({ id: userId, churchId: 'c', ts: Date.now(), email: '', personId: null, permissions: {}, leaderGroupIds: [] })).toBe(true);
    await failing.close();
  });

  it('asks its source only once started (when the service listens), then on every poll', async () => {
    let asked = 0;
    const counting = await createRevocations({
      source: async () => {
        asked += 1;
        return { entries: [], now: Date.now() };
      },
      pollMs: 20,
      log: silent,
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(asked).toBe(0);
    counting.start();
    await new Promise((r) => setTimeout(r, 90));
    expect(asked).toBeGreaterThanOrEqual(2);
    await counting.close();
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (redisUrl ? it : it.skip)('tells every replica at once through Redis (needs TEST_REDIS_URL)', async () => {
    const quiet = async () => ({ entries: [], now: Date.now() });
    const a = await createRevocations({ source: quiet, pollMs: 0, redisUrl, log: silent });
    const b = await createRevocations({ source: quiet, pollMs: 0, redisUrl, log: silent });
    const userId = randomUUID();
    const claims = { id: userId, churchId: 'c', ts: Date.now() - 10, email: '', personId: null, permissions: {}, leaderGroupIds: [] };
    await a.publish([{ userId, churchId: null, at: Date.now() }]);
    for (let i = 0; i < 50 && !b.isRevoked(claims); i++) await new Promise((r) => setTimeout(r, 20));
    expect(b.isRevoked(claims)).toBe(true);
    await a.close();
    await b.close();
  });
});
