import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { useMembership } from '../setup';
import { claimsOf, joinAsGuest, registeredChurch, serverAdmin } from '../identity-factories';
import { clock } from '../../src/domain/clock';
import { oauthClients, oauthCodes, oauthDeviceCodes, oauthRefreshTokens } from '../../src/db/schema';

const t = useMembership();
let admin: { token: string };
beforeAll(async () => {
  admin = await serverAdmin(t);
});
afterEach(() => jest.restoreAllMocks());

const REDIRECT = 'https://app.example.test/callback';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function makeClient(scopes = ['people:read', 'people:write', 'groups:read', 'offline_access']) {
  const res = await call(t.app, 'POST', '/membership/oauth/clients', { token: admin.token, body: { name: 'Planner', redirectUris: [REDIRECT], scopes } });
  expect(res.statusCode).toBe(200);
  return res.json()[0] as { id: string; clientId: string; clientSecret: string; createdAt: string };
}
const token = (body: Record<string, string>) => call(t.app, 'POST', '/membership/oauth/token', { body });
/** Moves the module clock `seconds` ahead of real time. */
const advance = (seconds: number) => jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + seconds * 1000));

describe('OAuth clients', () => {
  it('creates a client with a secret shown once and stored hashed', async () => {
    await expectGuarded(t.app, { method: 'POST', url: '/membership/oauth/clients', body: { name: 'X' }, permission: 'Server.Admin' }, crypto.randomUUID());
    const client = await makeClient();
    expect(client).toEqual({
      id: expect.any(String),
      name: 'Planner',
      clientId: expect.any(String),
      clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
      redirectUris: [REDIRECT],
      scopes: ['people:read', 'people:write', 'groups:read', 'offline_access'],
      createdAt: expect.any(String),
    });
    const [row] = await t.app.db.select().from(oauthClients).where(eq(oauthClients.id, client.id));
    expect(row!.clientSecretHash).toHaveLength(64);
    expect(row!.clientSecretHash).not.toBe(client.clientSecret);
  });

  it('refuses unknown scopes and bad redirect addresses', async () => {
    const res = await call(t.app, 'POST', '/membership/oauth/clients', { token: admin.token, body: { name: 'X', redirectUris: [REDIRECT], scopes: ['people:read', 'root'] } });
    expect([res.statusCode, res.json().errors[0].param]).toEqual([400, 'scopes']);
    const bad = await call(t.app, 'POST', '/membership/oauth/clients', { token: admin.token, body: { name: 'X', redirectUris: 'not a url' } });
    expect(bad.json().errors[0].param).toMatch(/^redirectUris/);
  });

  it('lists, reads, updates and deletes clients for server admins; the read by client id hides the secret', async () => {
    const client = await makeClient();
    const { token: userToken, church } = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/oauth/clients', permission: 'Server.Admin' }, church.id);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/oauth/clients/${client.id}`, permission: 'Server.Admin' }, church.id);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/oauth/clients/${client.id}`, permission: 'Server.Admin' }, church.id);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/oauth/clients/clientId/${client.clientId}` }, church.id);
    expect((await call(t.app, 'GET', '/membership/oauth/clients', { token: userToken })).statusCode).toBe(401);
    const { clientSecret: _secret, ...stored } = client;
    expect((await call(t.app, 'GET', '/membership/oauth/clients', { token: admin.token })).json()).toContainEqual(stored);
    expect((await call(t.app, 'GET', `/membership/oauth/clients/${client.id}`, { token: admin.token })).json()).toEqual(stored);
    const { createdAt: _c, ...publicView } = stored;
    const byClientId = await call(t.app, 'GET', `/membership/oauth/clients/clientId/${client.clientId}`, { token: userToken });
    expect(byClientId.json()).toEqual(publicView);
    expect(byClientId.body).not.toMatch(/secret/i);
    const updated = await call(t.app, 'POST', '/membership/oauth/clients', { token: admin.token, body: { id: client.id, name: 'Renamed', scopes: 'people:read offline_access' } });
    expect(updated.json()).toEqual([{ ...stored, name: 'Renamed', scopes: ['people:read', 'offline_access'] }]);
    expect((await call(t.app, 'DELETE', `/membership/oauth/clients/${client.id}`, { token: admin.token })).json()).toEqual({});
    expect((await call(t.app, 'GET', `/membership/oauth/clients/${client.id}`, { token: admin.token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/oauth/clients/clientId/${client.clientId}`, { token: userToken })).statusCode).toBe(404);
  });
});

describe('authorization code flow', () => {
  it('authorizes, exchanges the code once for a scoped 12-hour token, and refreshes', async () => {
    const client = await makeClient();
    const a = await registeredChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/oauth/authorize', body: { client_id: client.clientId } }, a.church.id);
    const auth = await call(t.app, 'POST', '/membership/oauth/authorize', {
      token: a.token,
      body: { client_id: client.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'people:read groups:read', state: 'xyz' },
    });
    expect(auth.json()).toEqual({ code: expect.any(String), state: 'xyz' });
    const { code } = auth.json();
    expect((await t.app.db.select().from(oauthCodes)).some((c) => c.codeHash === code)).toBe(false);

    const exchange = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret, redirect_uri: REDIRECT };
    expect((await token({ ...exchange, client_secret: 'wrong' })).json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect((await token({ ...exchange, redirect_uri: 'https://evil.example.test/cb' })).json().error).toBe('invalid_grant');
    // The mismatch above spent the code: codes are single-use, whatever happened to them.
    const auth2 = (await call(t.app, 'POST', '/membership/oauth/authorize', { token: a.token, body: { client_id: client.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'people:read groups:read' } })).json();
    const res = await token({ ...exchange, code: auth2.code });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 43200, refresh_token: expect.any(String), scope: 'people:read groups:read' });
    const claims = claimsOf(res.json().access_token);
    expect(claims).toMatchObject({ id: a.user.id, churchId: a.church.id, scope: 'people:read groups:read', membershipStatus: null, leaderGroupIds: [] });
    expect(Object.keys(claims.permissions as object)).toEqual(['MembershipApi']);
    expect((claims.permissions as Record<string, string[]>).MembershipApi!.sort()).toEqual(['GroupMembers.View', 'People.View', 'People.ViewMembers']);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(43200);
    expect((await token({ ...exchange, code: auth2.code })).json().error).toBe('invalid_grant');

    // The access token reaches church data it was scoped for, but not the account.
    expect((await call(t.app, 'GET', '/membership/permissions', { token: res.json().access_token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/membership/roles/church/${a.church.id}`, { token: res.json().access_token })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/membership/users/login', { body: { jwt: res.json().access_token } })).statusCode).toBe(401);

    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: res.json().refresh_token, client_id: client.clientId, client_secret: client.clientSecret });
    expect(refreshed.json()).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 43200, refresh_token: expect.any(String), scope: 'people:read groups:read' });
    expect(refreshed.json().refresh_token).not.toBe(res.json().refresh_token);
    const reused = await token({ grant_type: 'refresh_token', refresh_token: res.json().refresh_token, client_id: client.clientId, client_secret: client.clientSecret });
    expect([reused.statusCode, reused.json().error]).toEqual([400, 'invalid_grant']);
    expect(await t.app.db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.userId, a.user.id))).toHaveLength(2);
  });

  it('narrows to what the user holds: a guest gets no People.View from people:read', async () => {
    const client = await makeClient();
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const { code } = (await call(t.app, 'POST', '/membership/oauth/authorize', { token: guest.token, body: { client_id: client.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'people:read' } })).json();
    const res = await token({ grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret, redirect_uri: REDIRECT });
    expect(claimsOf(res.json().access_token).permissions).toEqual({});
  });

  it('expires codes after 10 minutes', async () => {
    const client = await makeClient();
    const a = await registeredChurch(t);
    const { code } = (await call(t.app, 'POST', '/membership/oauth/authorize', { token: a.token, body: { client_id: client.clientId, redirect_uri: REDIRECT, response_type: 'code' } })).json();
    advance(601);
    const res = await token({ grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret, redirect_uri: REDIRECT });
    expect(res.json().error).toBe('invalid_grant');
  });

  it('validates authorize requests in the spec’s error shape', async () => {
    const client = await makeClient(['people:read']);
    const a = await registeredChurch(t);
    const ask = (body: object) => call(t.app, 'POST', '/membership/oauth/authorize', { token: a.token, body: { client_id: client.clientId, redirect_uri: REDIRECT, response_type: 'code', ...body } });
    expect((await ask({ redirect_uri: 'https://other.example.test/' })).json().errors[0].param).toBe('redirect_uri');
    expect((await ask({ response_type: 'token' })).json().errors[0].param).toBe('response_type');
    expect((await ask({ scope: 'people:write' })).json().errors[0].param).toBe('scope');
    expect((await ask({ client_id: 'nope' })).json().errors[0].param).toBe('client_id');
    expect((await ask({ client_id: undefined })).json().errors[0].param).toBe('client_id');
  });

  it('answers token errors in the OAuth shape, form-encoded bodies included', async () => {
    expect((await token({})).json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect((await token({ grant_type: 'password' })).json().error).toBe('unsupported_grant_type');
    const form = await t.app.inject({
      method: 'POST',
      url: '/membership/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=refresh_token&refresh_token=abc&client_id=nobody',
    });
    expect([form.statusCode, form.json().error]).toEqual([400, 'invalid_client']);
  });
});

describe('device flow', () => {
  async function start(client: { clientId: string }, scope = 'people:read') {
    const res = await call(t.app, 'POST', '/membership/oauth/device/authorize', { body: { client_id: client.clientId, scope } });
    expect(res.statusCode).toBe(200);
    return res.json() as { device_code: string; user_code: string; verification_uri: string; expires_in: number; interval: number };
  }
  const poll = (client: { clientId: string }, deviceCode: string) => token({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: client.clientId });

  it('runs pending → slow_down → approve → token once', async () => {
    const client = await makeClient();
    const a = await registeredChurch(t);
    const started = await start(client);
    expect(started).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/),
      verification_uri: expect.stringMatching(/^https?:\/\//),
      verification_uri_complete: expect.stringContaining('user_code='),
      expires_in: 900,
      interval: 5,
    });
    const first = await poll(client, started.device_code);
    expect([first.statusCode, first.json()]).toEqual([400, { error: 'authorization_pending', error_description: expect.any(String) }]);
    expect((await poll(client, started.device_code)).json().error).toBe('slow_down');
    advance(16);
    expect((await poll(client, started.device_code)).json().error).toBe('authorization_pending');

    await expectGuarded(t.app, { method: 'GET', url: `/membership/oauth/device/pending/${started.user_code}` }, a.church.id);
    const typed = started.user_code.replace('-', '').toLowerCase();
    const pending = await call(t.app, 'GET', `/membership/oauth/device/pending/${typed}`, { token: a.token });
    expect(pending.json()).toEqual({ user_code: started.user_code, client_id: client.clientId, client_name: 'Planner', scopes: [{ name: 'people:read', description: 'View people' }], expires_in: expect.any(Number) });

    await expectGuarded(t.app, { method: 'POST', url: '/membership/oauth/device/approve', body: { user_code: started.user_code, church_id: a.church.id } }, a.church.id);
    const other = await registeredChurch(t);
    expect((await call(t.app, 'POST', '/membership/oauth/device/approve', { token: a.token, body: { user_code: typed, church_id: other.church.id } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/membership/oauth/device/approve', { token: a.token, body: { user_code: typed, church_id: a.church.id } })).json()).toEqual({ status: 'approved' });
    expect((await call(t.app, 'GET', `/membership/oauth/device/pending/${typed}`, { token: a.token })).statusCode).toBe(404);

    advance(40);
    const issued = await poll(client, started.device_code);
    expect(issued.statusCode).toBe(200);
    expect(issued.json()).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 43200, refresh_token: expect.any(String), scope: 'people:read' });
    expect(claimsOf(issued.json().access_token)).toMatchObject({ id: a.user.id, churchId: a.church.id, scope: 'people:read' });
    advance(80);
    expect((await poll(client, started.device_code)).json().error).toBe('invalid_grant');
  });

  it('answers access_denied after a denial and the code cannot be approved any more', async () => {
    const client = await makeClient();
    const a = await registeredChurch(t);
    const started = await start(client);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/oauth/device/deny', body: { user_code: started.user_code } }, a.church.id);
    expect((await call(t.app, 'POST', '/membership/oauth/device/deny', { token: a.token, body: { user_code: started.user_code } })).json()).toEqual({ status: 'denied' });
    expect((await poll(client, started.device_code)).json().error).toBe('access_denied');
    const approve = await call(t.app, 'POST', '/membership/oauth/device/approve', { token: a.token, body: { user_code: started.user_code, church_id: a.church.id } });
    expect([approve.statusCode, approve.json().errors[0].param]).toEqual([400, 'user_code']);
    const [row] = await t.app.db.select().from(oauthDeviceCodes).where(eq(oauthDeviceCodes.userCode, started.user_code.replace('-', '')));
    expect(row!.status).toBe('denied');
  });

  it('answers expired_token after 900 seconds', async () => {
    const client = await makeClient();
    const a = await registeredChurch(t);
    const started = await start(client);
    advance(901);
    expect((await poll(client, started.device_code)).json().error).toBe('expired_token');
    const approve = await call(t.app, 'POST', '/membership/oauth/device/approve', { token: a.token, body: { user_code: started.user_code, church_id: a.church.id } });
    expect(approve.statusCode).toBe(400);
  });

  it('refuses unknown clients, scopes the client lacks and malformed user codes', async () => {
    const client = await makeClient(['people:read']);
    const a = await registeredChurch(t);
    expect((await call(t.app, 'POST', '/membership/oauth/device/authorize', { body: { client_id: 'nobody' } })).json().error).toBe('invalid_client');
    expect((await call(t.app, 'POST', '/membership/oauth/device/authorize', { body: { client_id: client.clientId, scope: 'groups:write' } })).json().error).toBe('invalid_scope');
    expect((await call(t.app, 'POST', '/membership/oauth/device/authorize', { body: {} })).json().error).toBe('invalid_client');
    expect((await call(t.app, 'POST', '/membership/oauth/device/approve', { token: a.token, body: { user_code: 'OOOO-0000', church_id: a.church.id } })).json().errors[0].param).toBe('user_code');
    expect((await poll(client, 'not-a-device-code')).json().error).toBe('invalid_grant');
  });
});
