import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { domains } from '../../src/db/schema';
import { dnsCheck } from '../../src/domain/domains';
import { makeChurch, useMembership } from '../setup';

const proxyPosts: unknown[] = [];

/** A fake reverse-proxy configuration endpoint on loopback, and the app's setting that points at it. */
async function fakeProxy() {
  const proxy = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      proxyPosts.push({ method: req.method, url: req.url, body: JSON.parse(body) });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  return { config: { PROXY_CONFIG_URL: `http://127.0.0.1:${port}/config` }, close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) };
}
const t = useMembership({ fakes: fakeProxy });

const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}.example.org`;
async function insertDomain(churchId: string, domainName: string, values: Partial<typeof domains.$inferInsert> = {}) {
  const id = randomUUID();
  await t.app.db.insert(domains).values({ id, churchId, domainName, ...values });
  return id;
}

// B1Admin:src/settings/components/DomainSettingsEdit.tsx "relink": GET /domains/caddy, then an alert.
describe('GET /membership/domains/caddy', () => {
  it('sends the domain list to the reverse proxy again, for Settings.Edit', async () => {
    const c = await makeChurch(t);
    const name = unique('relink');
    await insertDomain(c.churchId, name);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/domains/caddy', permission: 'Settings.Edit' }, c.churchId);
    await t.drain();
    proxyPosts.length = 0;
    const res = await call(t.app, 'GET', '/membership/domains/caddy', { token: c.token(['Settings.Edit']) });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    await t.drain();
    expect(proxyPosts).toHaveLength(1);
    expect((proxyPosts[0] as { body: { domains: Array<{ domainName: string }> } }).body.domains).toContainEqual({ domainName: name, churchId: c.churchId });
  });
});

describe('POST /membership/domains', () => {
  it('saves lower-cased names and sends the full list to the reverse proxy after commit', async () => {
    const c = await makeChurch(t);
    const name = unique('WWW.Grace');
    proxyPosts.length = 0;
    const res = await call(t.app, 'POST', '/membership/domains', { token: c.token(['Settings.Edit']), body: { domainName: `  ${name} ` } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: expect.any(String), churchId: c.churchId, domainName: name.toLowerCase(), siteId: null, lastChecked: null, isStale: false }]);
    await t.drain();
    expect(proxyPosts).toHaveLength(1);
    const post = proxyPosts[0] as { method: string; url: string; body: { domains: Array<{ domainName: string; churchId: string }> } };
    expect(post.method).toBe('POST');
    expect(post.url).toBe('/config');
    expect(post.body.domains).toContainEqual({ domainName: name.toLowerCase(), churchId: c.churchId });
    const again = await call(t.app, 'POST', '/membership/domains', { token: c.token(['Settings.Edit']), body: { domainName: name } });
    expect(again.json()[0].id).toBe(res.json()[0].id);
  });

  it('a name another church holds is a 409 and nothing is written', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const name = unique('taken');
    await insertDomain(a.churchId, name);
    const res = await call(t.app, 'POST', '/membership/domains', { token: b.token(['Settings.Edit']), body: [{ domainName: unique('fine') }, { domainName: name.toUpperCase() }] });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatch(/domain/);
    expect(await t.app.db.select().from(domains).where(eq(domains.churchId, b.churchId))).toEqual([]);
  });

  it("renames by id; another church's id is a 404", async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const id = await insertDomain(a.churchId, unique('old'), { lastChecked: new Date(), isStale: true });
    const renamed = unique('new');
    expect((await call(t.app, 'POST', '/membership/domains', { token: b.token(['Settings.Edit']), body: { id, domainName: unique('x') } })).statusCode).toBe(404);
    const res = await call(t.app, 'POST', '/membership/domains', { token: a.token(['Settings.Edit']), body: { id, domainName: renamed } });
    expect(res.json()[0]).toMatchObject({ id, domainName: renamed, lastChecked: null, isStale: false });
  });

  it('validates and is guarded', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/domains', { token: c.token(['Settings.Edit']), body: { domainName: 'https://bad/path' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('domainName');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/domains', body: { domainName: 'a.example.org' }, permission: 'Settings.Edit' }, c.churchId);
  });
});

describe('GET /membership/domains, /:id, /lookup, /public/lookup', () => {
  it('reads the church’s domains; other churches see nothing', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const name = unique('alpha');
    const id = await insertDomain(a.churchId, name);
    const list = await call(t.app, 'GET', '/membership/domains', { token: a.token() });
    expect(list.json()).toEqual([{ id, churchId: a.churchId, domainName: name, siteId: null, lastChecked: null, isStale: false }]);
    expect((await call(t.app, 'GET', '/membership/domains', { token: b.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/membership/domains/${id}`, { token: a.token() })).json()).toMatchObject({ id, domainName: name });
    expect((await call(t.app, 'GET', `/membership/domains/${id}`, { token: b.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/domains/lookup/${name.toUpperCase()}`, { token: a.token() })).json()).toMatchObject({ id });
    expect((await call(t.app, 'GET', `/membership/domains/lookup/${name}`, { token: b.token() })).statusCode).toBe(404);
    const pub = await call(t.app, 'GET', `/membership/domains/public/lookup/${name}`);
    expect(pub.json()).toEqual({ id, churchId: a.churchId, domainName: name });
    expect((await call(t.app, 'GET', `/membership/domains/public/lookup/${unique('none')}`)).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/domains' }, a.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/domains/${id}` }, a.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/domains/lookup/${name}` }, a.churchId);
  });
});

describe('GET /membership/domains/health/check', () => {
  const { resolve, timeoutMs } = dnsCheck;
  afterEach(() => {
    Object.assign(dnsCheck, { resolve, timeoutMs });
  });

  it('checks unchecked domains: resolvable ones are fresh, others stale; recent checks are skipped', async () => {
    await t.app.db.delete(domains);
    const c = await makeChurch(t);
    const ok = await insertDomain(c.churchId, 'localhost');
    const bad = await insertDomain(c.churchId, unique('gone'));
    const recent = await insertDomain(c.churchId, unique('recent'), { lastChecked: new Date() });
    const real = dnsCheck.resolve;
    dnsCheck.resolve = (host) => (host === 'localhost' ? real(host) : Promise.reject(new Error('ENOTFOUND')));
    const res = await call(t.app, 'GET', '/membership/domains/health/check');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ checked: 2, stale: 1 });
    const rows = Object.fromEntries((await t.app.db.select().from(domains)).map((d) => [d.id, d]));
    expect(rows[ok]).toMatchObject({ isStale: false, lastChecked: expect.any(Date) });
    expect(rows[bad]).toMatchObject({ isStale: true, lastChecked: expect.any(Date) });
    expect(rows[recent]!.isStale).toBe(false);
  });

  it('does not hang on a resolver that never answers', async () => {
    await t.app.db.delete(domains);
    const c = await makeChurch(t);
    const id = await insertDomain(c.churchId, unique('slow'));
    dnsCheck.resolve = () => new Promise(() => undefined);
    dnsCheck.timeoutMs = 100;
    const started = Date.now();
    const res = await call(t.app, 'GET', '/membership/domains/health/check');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(res.json()).toEqual({ checked: 1, stale: 1 });
    expect((await t.app.db.select().from(domains).where(eq(domains.id, id)))[0]!.isStale).toBe(true);
  });
});

describe('DELETE /membership/domains/:id', () => {
  it('deletes and reconfigures the proxy; another church gets 404 and the row stays', async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const name = unique('bye');
    const id = await insertDomain(a.churchId, name);
    expect((await call(t.app, 'DELETE', `/membership/domains/${id}`, { token: b.token(['Settings.Edit']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(domains).where(eq(domains.id, id))).toHaveLength(1);
    proxyPosts.length = 0;
    expect((await call(t.app, 'DELETE', `/membership/domains/${id}`, { token: a.token(['Settings.Edit']) })).statusCode).toBe(200);
    expect(await t.app.db.select().from(domains).where(eq(domains.id, id))).toEqual([]);
    await t.drain();
    const post = proxyPosts[0] as { body: { domains: Array<{ domainName: string }> } };
    expect(post.body.domains.map((d) => d.domainName)).not.toContain(name);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/domains/${id}`, permission: 'Settings.Edit' }, a.churchId);
  });
});

describe('membership.proxyConfig without PROXY_CONFIG_URL', () => {
  const bare = useMembership();

  it('logs and does nothing', async () => {
    const c = await makeChurch(bare);
    proxyPosts.length = 0;
    const res = await call(bare.app, 'POST', '/membership/domains', { token: c.token(['Settings.Edit']), body: { domainName: unique('quiet') } });
    expect(res.statusCode).toBe(200);
    await bare.drain();
    expect(proxyPosts).toEqual([]);
  });
});
