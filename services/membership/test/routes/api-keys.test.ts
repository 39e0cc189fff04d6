import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { claimsOf, registeredChurch } from '../identity-factories';
import { apiKeys, roleMembers } from '../../src/db/schema';

// B1Admin:src/settings/components/DeveloperSection.tsx lists keys (name, prefix, scopes as a delimited string,
// lastUsedAt, expiresAt) and deletes them; ApiKeyEdit.tsx reads `/apiKeys/scopes` {scopes} and the create answer's
// `key`, shown once.
const t = useMembership();

const exchange = (key: string) => call(t.app, 'POST', '/membership/apiKeys/token', { body: { key } });

async function keyFor(token: string, body: Record<string, unknown> = { name: 'Sync', scopes: ['people:read'] }) {
  const res = await call(t.app, 'POST', '/membership/apiKeys', { token, body });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('API keys', () => {
  it('lists the scopes a key may carry', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'GET', '/membership/apiKeys/scopes', { token: c.token(['Settings.Edit']) });
    expect(res.statusCode).toBe(200);
    expect(res.json().scopes).toEqual(expect.arrayContaining(['people:read', 'groups:write', 'donations:read']));
    expect(res.json().scopes).not.toContain('offline_access');
    expect(res.json().catalog[0]).toEqual({ name: expect.any(String), description: expect.any(String) });
  });

  it('shows a new key once, stores only its hash and lists it masked', async () => {
    const a = await registeredChurch(t);
    const created = await keyFor(a.token, { name: 'Zapier', scopes: ['people:read', 'groups:read'], expiresAt: '2099-01-31' });
    expect(created).toEqual({
      id: expect.any(String),
      churchId: a.church.id,
      userId: a.user.id,
      personId: a.personId,
      name: 'Zapier',
      prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
      scopes: 'people:read groups:read',
      lastUsedAt: null,
      expiresAt: '2099-02-01T00:00:00.000Z',
      createdAt: expect.any(String),
      key: expect.stringMatching(/^cak_[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/),
    });
    expect(created.key.startsWith(`cak_${created.prefix}.`)).toBe(true);
    const [row] = await t.app.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row!.keyHash).not.toContain(created.key.split('.')[1]);
    const list = (await call(t.app, 'GET', '/membership/apiKeys', { token: a.token })).json();
    expect(list).toEqual([{ ...created, key: undefined }].map(({ key: _k, ...rest }) => rest));
  });

  it('refuses no scope, unknown scopes and a past expiry, naming the field', async () => {
    const a = await registeredChurch(t);
    for (const [body, param] of [
      [{ name: 'X', scopes: [] }, 'scopes'],
      [{ name: 'X', scopes: ['people:read', 'constructor'] }, 'scopes'],
      [{ name: 'X', scopes: 'people:read', expiresAt: '2001-01-01' }, 'expiresAt'],
      [{ scopes: ['people:read'] }, 'name'],
    ] as const) {
      const res = await call(t.app, 'POST', '/membership/apiKeys', { token: a.token, body });
      expect([param, res.statusCode, res.json().errors[0].param]).toEqual([param, 400, param]);
    }
  });

  it('exchanges a key for a token of its church narrowed to its scopes, which every route checks like permissions', async () => {
    const a = await registeredChurch(t);
    const key = await keyFor(a.token, { name: 'Reader', scopes: 'people:read' });
    const res = await exchange(key.key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ token: expect.any(String), expiresIn: 3600, expiresAt: expect.any(String), scope: 'people:read', churchId: a.church.id });
    const token = res.json().token;
    const claims = claimsOf(token) as { id: string; churchId: string; scope: string; permissions: Record<string, string[]> };
    expect(claims).toMatchObject({ id: key.id, churchId: a.church.id, scope: 'people:read' });
    expect(Object.values(claims.permissions).flat().sort()).toEqual(['People.View', 'People.ViewMembers']);
    expect((await call(t.app, 'GET', '/membership/people', { token })).statusCode).toBe(200);
    // Group editing is outside the key's scopes even though its user may edit groups.
    expect((await call(t.app, 'POST', '/membership/groups', { token, body: [{ name: 'Nope' }] })).statusCode).toBe(401);
    // A scoped token makes no keys and changes no account.
    expect((await call(t.app, 'POST', '/membership/apiKeys', { token, body: { name: 'Again', scopes: ['people:read'] } })).statusCode).toBe(401);
    // The header form works too, and the use is recorded.
    const viaHeader = await call(t.app, 'POST', '/membership/apiKeys/token', { headers: { authorization: `Bearer ${key.key}` } });
    expect(viaHeader.statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/apiKeys', { token: a.token })).json()[0].lastUsedAt).toEqual(expect.any(String));
  });

  it('works sent straight as the bearer token (the service exchanges it), and stops the moment the key is deleted', async () => {
    const a = await registeredChurch(t);
    const key = await keyFor(a.token, { name: 'Sync', scopes: 'people:read' });
    expect((await call(t.app, 'GET', '/membership/people', { token: key.key })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/membership/groups', { token: key.key, body: [{ name: 'Nope' }] })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/membership/people', { token: `${key.key.slice(0, -4)}AAAA` })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/membership/apiKeys/${key.id}`, { token: a.token })).statusCode).toBe(200);
    // The token kept for the key is revoked with it.
    expect((await call(t.app, 'GET', '/membership/people', { token: key.key })).statusCode).toBe(401);
  });

  it('refuses a wrong, malformed or expired key with one answer', async () => {
    const a = await registeredChurch(t);
    const key = await keyFor(a.token);
    const wrong = `${key.key.slice(0, -4)}AAAA`;
    for (const k of [wrong, 'cak_nothing', 'hello', `${key.key}x`]) {
      const res = await exchange(k);
      expect([k, res.statusCode, res.json().errors[0]]).toEqual([k, 401, 'Invalid API key']);
    }
    await t.app.db.update(apiKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiKeys.id, key.id));
    expect((await exchange(key.key)).statusCode).toBe(401);
  });

  it('revokes at once: deleting the key refuses the tokens already minted from it', async () => {
    const a = await registeredChurch(t);
    const key = await keyFor(a.token);
    const token = (await exchange(key.key)).json().token;
    expect((await call(t.app, 'GET', '/membership/people', { token })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/membership/apiKeys/${key.id}`, { token: a.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/people', { token })).statusCode).toBe(401);
    expect((await exchange(key.key)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/membership/apiKeys', { token: a.token })).json()).toEqual([]);
  });

  it('falls with its user: taking the user’s role away refuses the key’s tokens and narrows the next one', async () => {
    const a = await registeredChurch(t);
    const key = await keyFor(a.token);
    const token = (await exchange(key.key)).json().token;
    const [membership] = await t.app.db.select().from(roleMembers).where(eq(roleMembers.userId, a.user.id));
    expect((await call(t.app, 'DELETE', `/membership/rolemembers/${membership!.id}`, { token: a.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/people', { token })).statusCode).toBe(401);
    const next = (await exchange(key.key)).json().token;
    expect(Object.values((claimsOf(next) as { permissions: Record<string, string[]> }).permissions).flat()).toEqual([]);
  });

  it('keeps keys to their church and needs Settings.Edit', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const key = await keyFor(a.token);
    expect((await call(t.app, 'DELETE', `/membership/apiKeys/${key.id}`, { token: b.token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/apiKeys', { token: b.token })).json()).toEqual([]);
    expect((await exchange(key.key)).statusCode).toBe(200);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/apiKeys', permission: 'Settings.Edit' }, a.church.id);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/apiKeys', body: { name: 'X', scopes: ['people:read'] }, permission: 'Settings.Edit' }, a.church.id);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/apiKeys/${key.id}`, permission: 'Settings.Edit' }, a.church.id);
  });
});
