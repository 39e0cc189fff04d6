import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, fakeServer, type FakeAnswer, type FakeRequest } from '@church/common/testing';
import { contentProviderAuths } from '../../src/db/schema';
import { makeChurch, useDoing } from '../setup';

// Lessons.church as its public API answers, with a token endpoint that hands out `fresh-token`.
const tree = { programs: [{ id: 'prog1', name: 'Kids', studies: [{ id: 'study1', name: 'Genesis', lessons: [{ id: 'lesson1', name: 'Creation', venues: [{ id: 'venue1', name: 'Elementary' }] }] }] }] };
const feed = {
  name: 'Elementary',
  lessonName: 'Creation',
  sections: [
    { id: 's1', name: 'Open', actions: [{ id: 'a1', actionType: 'say', content: 'Welcome' }] },
    { id: 's2', name: 'Watch', actions: [{ id: 'a2', actionType: 'play', content: 'Day one', files: [{ id: 'f1', name: 'Day one', url: 'https://cdn.example/d1.mp4', seconds: 90 }] }] },
  ],
};
const playlist = { messages: [{ name: 'Watch', files: [{ id: 'f1', name: 'Day one', url: 'https://cdn.example/d1-720.mp4', seconds: 90 }] }] };
let mode: 'ok' | 'down' | 'requireFresh' = 'ok';
const VERIFIER = 'v'.repeat(43);
function lessons(req: FakeRequest): FakeAnswer {
  if (req.path === '/oauth/token') {
    if (req.form.get('grant_type') === 'authorization_code') {
      const good = req.form.get('code') === 'good-code' && req.form.get('code_verifier') === VERIFIER && req.form.get('redirect_uri') === 'https://admin.example/oauth' && req.form.get('client_secret') === 'shh';
      if (!good) return { status: 400, body: { error: 'invalid_grant' } };
      return { body: { access_token: 'signed-in-token', refresh_token: 'refresh-1', expires_in: 7200, token_type: 'Bearer', scope: 'lessons' } };
    }
    if (req.form.get('grant_type') !== 'refresh_token' || req.form.get('refresh_token') !== 'refresh-1') return { status: 400, body: { error: 'invalid_grant' } };
    return { body: { access_token: 'fresh-token', refresh_token: 'refresh-2', expires_in: 3600, token_type: 'Bearer' } };
  }
  if (mode === 'down') return { status: 500, body: { error: 'boom' } };
  if (mode === 'requireFresh' && req.headers.authorization !== 'Bearer fresh-token') return { status: 401, body: { error: 'expired' } };
  if (req.path === '/lessons/public/tree') return { body: tree };
  if (req.path === '/venues/public/feed/venue1') return { body: feed };
  if (req.path === '/venues/playlist/venue1') return { body: playlist };
  return { status: 404, body: { error: 'not found' } };
}
const t = useDoing({
  config: { LESSONS_CLIENT_SECRET: 'shh' },
  fakes: async () => {
    const server = await fakeServer(lessons);
    return { server, config: { LESSONS_API_BASE: server.url }, close: server.close };
  },
});

const auth = async (c: ReturnType<typeof makeChurch>, ministryId: string, body: Record<string, unknown>) => {
  const res = await call(t.app, 'POST', '/doing/contentProviderAuths', { token: c.token(), body: { ministryId, providerId: 'lessonschurch', ...body } });
  expect(res.statusCode).toBe(200);
  return res.json()[0];
};
const proxy = (c: ReturnType<typeof makeChurch>, op: string, body: Record<string, unknown>) => call(t.app, 'POST', `/doing/providerProxy/${op}`, { token: c.token(), body: { providerId: 'lessonschurch', ...body } });

describe('/doing/contentProviderAuths', () => {
  it('seals tokens at rest and never answers them', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const saved = await auth(c, ministryId, { accessToken: 'secret-access', refreshToken: 'secret-refresh', expiresIn: 3600, scopes: 'content' });
    expect(saved).toMatchObject({ ministryId, providerId: 'lessonschurch', hasAccessToken: true, hasRefreshToken: true, scopes: 'content' });
    expect(JSON.stringify(saved)).not.toMatch(/secret-/);
    const [row] = await t.app.db.select().from(contentProviderAuths).where(eq(contentProviderAuths.id, saved.id));
    expect(row!.accessToken).toMatch(/^v1\./);
    expect(t.app.deps.secrets.decrypt(row!.accessToken!)).toBe('secret-access');
    const token = c.token();
    for (const url of ['/doing/contentProviderAuths', `/doing/contentProviderAuths/ministry/${ministryId}`, `/doing/contentProviderAuths/ministry/${ministryId}/lessonschurch`, `/doing/contentProviderAuths/ids?ids=${saved.id}`]) {
      const res = await call(t.app, 'GET', url, { token });
      expect(res.json()).toHaveLength(1);
      expect(res.body).not.toMatch(/secret-|v1\./);
    }
    expect((await call(t.app, 'GET', `/doing/contentProviderAuths/${saved.id}`, { token })).json().hasRefreshToken).toBe(true);
    expect((await call(t.app, 'GET', `/doing/contentProviderAuths/${saved.id}`, { token: makeChurch().token() })).statusCode).toBe(404);
    // an update without tokens keeps them
    await auth(c, ministryId, { id: saved.id, scopes: 'more' });
    const [kept] = await t.app.db.select().from(contentProviderAuths).where(eq(contentProviderAuths.id, saved.id));
    expect(t.app.deps.secrets.decrypt(kept!.refreshToken!)).toBe('secret-refresh');
    expect((await call(t.app, 'DELETE', `/doing/contentProviderAuths/${saved.id}`, { token })).statusCode).toBe(200);
  });
});

describe('POST /doing/contentProviderAuths/exchange and /refresh (B1Admin:src/helpers/ContentProviderAuthHelper.ts)', () => {
  const exchange = (c: ReturnType<typeof makeChurch>, body: Record<string, unknown>) =>
    call(t.app, 'POST', '/doing/contentProviderAuths/exchange', { token: c.token(), body: { providerId: 'lessonschurch', code: 'good-code', codeVerifier: VERIFIER, redirectUri: 'https://admin.example/oauth', ...body } });

  it('exchanges the PKCE code with the provider (client secret added here), keeps the tokens sealed and answers the record', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const res = await exchange(c, { ministryId });
    expect(res.statusCode).toBe(200);
    // exchangeCode reads only that no `error` came back; getLinkedProviders reads providerId
    expect(res.json()).toEqual({ id: expect.any(String), churchId: c.churchId, ministryId, providerId: 'lessonschurch', tokenType: 'Bearer', expiresAt: expect.any(String), scopes: 'lessons', scope: 'lessons', hasAccessToken: true, hasRefreshToken: true });
    expect(res.body).not.toMatch(/signed-in-token|refresh-1/);
    const grant = t.server.seen.filter((r) => r.path === '/oauth/token').at(-1)!;
    expect(Object.fromEntries(grant.form)).toMatchObject({ grant_type: 'authorization_code', code: 'good-code', code_verifier: VERIFIER, redirect_uri: 'https://admin.example/oauth', client_secret: 'shh' });
    const [row] = await t.app.db.select().from(contentProviderAuths).where(eq(contentProviderAuths.id, res.json().id));
    expect(t.app.deps.secrets.decrypt(row!.accessToken!)).toBe('signed-in-token');
    // linking again replaces the ministry's record rather than adding one
    const again = await exchange(c, { ministryId });
    expect(again.json().id).toBe(res.json().id);
    expect((await call(t.app, 'GET', `/doing/contentProviderAuths/ministry/${ministryId}`, { token: c.token() })).json()).toHaveLength(1);
  });

  it('answers 400 naming the field for a refused code, an unknown provider, a bad verifier; no record is made', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const refused = await exchange(c, { ministryId, code: 'used-code' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0]).toMatchObject({ param: 'code', location: 'body' });
    expect((await exchange(c, { ministryId, providerId: 'nope' })).json().errors[0].param).toBe('providerId');
    expect((await exchange(c, { ministryId, codeVerifier: 'short' })).json().errors[0].param).toBe('codeVerifier');
    expect((await exchange(c, { ministryId, redirectUri: 'not a url' })).json().errors[0].param).toBe('redirectUri');
    expect((await call(t.app, 'GET', `/doing/contentProviderAuths/ministry/${ministryId}`, { token: c.token() })).json()).toEqual([]);
  });

  it('refreshes the ministry\'s tokens on request and answers the record; 404 without one, 409 without a refresh token', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const refresh = (m: string, who = c) => call(t.app, 'POST', '/doing/contentProviderAuths/refresh', { token: who.token(), body: { ministryId: m, providerId: 'lessonschurch' } });
    expect((await refresh(ministryId)).statusCode).toBe(404);
    const saved = await auth(c, ministryId, { accessToken: 'old-token', refreshToken: 'refresh-1', expiresAt: '2020-01-01T00:00:00Z' });
    const res = await refresh(ministryId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: saved.id, hasAccessToken: true, hasRefreshToken: true });
    expect(new Date(res.json().expiresAt).getTime()).toBeGreaterThan(Date.now());
    const [row] = await t.app.db.select().from(contentProviderAuths).where(eq(contentProviderAuths.id, saved.id));
    expect(t.app.deps.secrets.decrypt(row!.accessToken!)).toBe('fresh-token');
    expect((await refresh(ministryId, makeChurch())).statusCode).toBe(404);
    const other = randomUUID();
    await auth(c, other, { accessToken: 'public_api', refreshToken: '', scope: 'all' });
    const none = await refresh(other);
    expect([none.statusCode, none.json().errors[0]]).toEqual([409, 'This authorization has no refresh token; sign in to the provider again']);
  });

  it('stores B1Admin\'s `scope` as scopes (storeAuth for a provider without sign-in)', async () => {
    const c = makeChurch();
    const saved = await auth(c, randomUUID(), { accessToken: 'public_api', refreshToken: '', tokenType: 'none', expiresAt: '2036-01-01T00:00:00.000Z', scope: 'read' });
    expect(saved).toMatchObject({ scopes: 'read', scope: 'read', tokenType: 'none', hasAccessToken: true, hasRefreshToken: false });
  });
});

describe('/doing/providerProxy', () => {
  it('browses the tree, lists presentations, the playlist and instructions through the Lessons.church adapter', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const root = await proxy(c, 'browse', { ministryId, path: '/lessons' });
    expect(root.statusCode).toBe(200);
    expect(root.json()).toEqual([{ type: 'folder', id: 'prog1', title: 'Kids', path: '/lessons/prog1', image: null }]);
    const venues = await proxy(c, 'browse', { ministryId, path: '/lessons/prog1/study1/lesson1' });
    expect(venues.json()[0]).toMatchObject({ id: 'venue1', path: '/lessons/prog1/study1/lesson1/venue1' });
    const venuePath = '/lessons/prog1/study1/lesson1/venue1';
    const pres = (await proxy(c, 'getPresentations', { ministryId, path: venuePath })).json();
    expect(pres).toMatchObject({ id: 'venue1', name: 'Creation', sections: [{ name: 'Open', presentations: [] }, { name: 'Watch', presentations: [{ name: 'Day one', files: [{ url: 'https://cdn.example/d1.mp4', seconds: 90 }] }] }] });
    const list = await proxy(c, 'getPlaylist', { ministryId, path: venuePath, resolution: 720 });
    expect(list.json()).toEqual([expect.objectContaining({ url: 'https://cdn.example/d1-720.mp4', mediaType: 'video' })]);
    expect(t.server.seen.find((r) => r.path === '/venues/playlist/venue1')!.query.get('resolution')).toBe('720');
    const plain = (await proxy(c, 'getInstructions', { ministryId, path: venuePath })).json();
    expect(plain.items[1].children[0]).toEqual({ id: 'a2', itemType: 'action', label: 'Day one', actionType: 'play', seconds: null });
    const expanded = (await proxy(c, 'getExpandedInstructions', { ministryId, path: venuePath })).json();
    expect(expanded.items[1].children[0].files[0].url).toBe('https://cdn.example/d1.mp4');
  });

  it('refreshes an expired token first, saves the new one, and sends it', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    const saved = await auth(c, ministryId, { accessToken: 'old-token', refreshToken: 'refresh-1', expiresAt: '2020-01-01T00:00:00Z' });
    mode = 'requireFresh';
    try {
      const res = await proxy(c, 'browse', { ministryId, path: '/lessons' });
      expect(res.statusCode).toBe(200);
    } finally {
      mode = 'ok';
    }
    const refresh = t.server.seen.filter((r) => r.path === '/oauth/token');
    expect(refresh.at(-1)!.form.get('refresh_token')).toBe('refresh-1');
    const [row] = await t.app.db.select().from(contentProviderAuths).where(eq(contentProviderAuths.id, saved.id));
    expect(t.app.deps.secrets.decrypt(row!.accessToken!)).toBe('fresh-token');
    expect(t.app.deps.secrets.decrypt(row!.refreshToken!)).toBe('refresh-2');
    expect(row!.expiresAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('refreshes once after a 401 and retries; a refused refresh is a 502', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    await auth(c, ministryId, { accessToken: 'revoked', refreshToken: 'refresh-1', expiresIn: 3600 });
    mode = 'requireFresh';
    try {
      expect((await proxy(c, 'browse', { ministryId, path: '/lessons' })).statusCode).toBe(200);
      const other = randomUUID();
      await auth(c, other, { accessToken: 'revoked', refreshToken: 'wrong', expiresIn: 3600 });
      const refused = await proxy(c, 'browse', { ministryId: other, path: '/lessons' });
      expect(refused.statusCode).toBe(502);
      expect(refused.json().errors[0]).toMatch(/Lessons.church failed/);
    } finally {
      mode = 'ok';
    }
  });

  it('answers 502 for a provider outage, 400 for an unknown provider or a bad path', async () => {
    const c = makeChurch();
    mode = 'down';
    try {
      const res = await proxy(c, 'getPresentations', { ministryId: randomUUID(), path: '/lessons/p/s/l/venue1' });
      expect(res.statusCode).toBe(502);
      expect(res.json().errors[0]).toBe('Lessons.church failed: answered 500');
    } finally {
      mode = 'ok';
    }
    const unknown = await call(t.app, 'POST', '/doing/providerProxy/browse', { token: c.token(), body: { ministryId: randomUUID(), providerId: 'nope', path: '/' } });
    expect(unknown.json().errors[0].param).toBe('providerId');
    const path = await proxy(c, 'getPlaylist', { ministryId: randomUUID(), path: '/lessons/prog1' });
    expect(path.statusCode).toBe(400);
    expect(path.json().errors[0].param).toBe('path');
    expect((await call(t.app, 'POST', '/doing/providerProxy/browse', { token: c.token(), body: {} })).json().errors[0].param).toBe('ministryId');
  });

  it('answers 400, never a 500, for a providerId that names a property every object has', async () => {
    const c = makeChurch();
    const ministryId = randomUUID();
    await auth(c, ministryId, { accessToken: 'stored-token' });
    for (const providerId of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
      const res = await call(t.app, 'POST', '/doing/providerProxy/browse', { token: c.token(), body: { ministryId, providerId, path: '/' } });
      expect([providerId, res.statusCode]).toEqual([providerId, 400]);
      expect(res.json().errors[0].param).toBe('providerId');
    }
  });
});
