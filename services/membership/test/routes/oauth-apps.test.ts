import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { useMembership } from '../setup';
import { joinAsGuest, registeredChurch } from '../identity-factories';
import { oauthClients, oauthRefreshTokens } from '../../src/db/schema';
import { grantKey } from '../../src/domain/oauth/tokens';

const t = useMembership({ config: { MEMBERSHIP_PUBLIC_URL: 'https://api.example.org/membership/' } });

async function grant(userId: string, churchId: string, opts: { revoked?: boolean; expired?: boolean } = {}) {
  const clientId = `app-${randomUUID().slice(0, 6)}`;
  await t.app.db.insert(oauthClients).values({ id: randomUUID(), name: 'Planning Center Sync', clientId, scopes: ['people:read'] });
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + (opts.expired ? -1 : 1) * 24 * 3600 * 1000);
  await t.app.db.insert(oauthRefreshTokens).values({ id, tokenHash: randomUUID(), clientId, userId, churchId, scopes: ['people:read', 'groups:read'], expiresAt, revokedAt: opts.revoked ? new Date() : null });
  return { id, clientId, expiresAt };
}

// B1Admin:src/settings/components/DeveloperSection.tsx lists {clientName, scopes (a delimited string), createdAt,
// expiresAt} and revokes by id.
describe('connected apps', () => {
  it('lists the caller’s live grants in the church and revokes one', async () => {
    const a = await registeredChurch(t);
    const live = await grant(a.user.id, a.church.id);
    await grant(a.user.id, a.church.id, { revoked: true });
    await grant(a.user.id, a.church.id, { expired: true });
    const res = await call(t.app, 'GET', '/membership/oauth/connections', { token: a.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: live.id, clientId: live.clientId, clientName: 'Planning Center Sync', scopes: 'people:read groups:read', createdAt: expect.any(String), expiresAt: live.expiresAt.toISOString() },
    ]);
    expect((await call(t.app, 'DELETE', `/membership/oauth/connections/${live.id}`, { token: a.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/oauth/connections', { token: a.token })).json()).toEqual([]);
    // The refresh token is revoked: the app can mint no new access token.
    const [row] = await t.deps.database.rows<{ revoked_at: Date | null }>('select revoked_at from oauth_refresh_tokens where id = $1', [live.id]);
    expect(row!.revoked_at).toEqual(expect.any(Date));
  });

  it('refuses at once an access token the app already holds when it is disconnected', async () => {
    const a = await registeredChurch(t);
    const live = await grant(a.user.id, a.church.id);
    // the app's token as issueTokens mints it: the user's claims, narrowed, with the grant's key
    const appToken = t.deps.signToken({ id: a.user.id, email: a.user.email, churchId: a.church.id, personId: null, permissions: { MembershipApi: ['People.View'] }, leaderGroupIds: [], scope: 'people:read', gid: grantKey({ clientId: live.clientId, userId: a.user.id, churchId: a.church.id }) });
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(t.app, 'GET', '/membership/people', { token: appToken })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/membership/oauth/connections/${live.id}`, { token: a.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/people', { token: appToken })).statusCode).toBe(401);
    // the user's own sign-in is untouched
    expect((await call(t.app, 'GET', '/membership/people', { token: a.token })).statusCode).toBe(200);
  });

  it('never shows or revokes another user’s or church’s grants', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const member = await joinAsGuest(t, a.church.id);
    const theirs = await grant(member.user.id, a.church.id);
    const elsewhere = await grant(a.user.id, b.church.id);
    expect((await call(t.app, 'GET', '/membership/oauth/connections', { token: a.token })).json()).toEqual([]);
    expect((await call(t.app, 'DELETE', `/membership/oauth/connections/${theirs.id}`, { token: a.token })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/oauth/connections/${elsewhere.id}`, { token: a.token })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/oauth/connections', permission: 'Settings.Edit' }, a.church.id);
  });
});

// B1Admin:src/serving/components/ContentProviderAuthManager.tsx and settings/components/StorageSettingsEdit.tsx read
// {sessionCode, redirectUri, expiresIn} and poll until {status: 'completed', authCode}.
describe('OAuth relay sessions', () => {
  it('relays the provider’s code to the app once', async () => {
    const a = await registeredChurch(t);
    const created = await call(t.app, 'POST', '/membership/oauth/relay/sessions', { token: a.token, body: { provider: 'lessonschurch' } });
    expect(created.statusCode).toBe(200);
    const { sessionCode } = created.json();
    expect(created.json()).toEqual({ sessionCode: expect.stringMatching(/^[A-HJKMNP-Z2-9]{8}$/), redirectUri: 'https://api.example.org/membership/oauth/relay/callback', expiresIn: 900, interval: 5 });
    expect((await call(t.app, 'GET', `/membership/oauth/relay/sessions/${sessionCode}`)).json()).toEqual({ status: 'pending', expiresIn: expect.any(Number) });
    const page = await call(t.app, 'GET', `/membership/oauth/relay/callback?code=provider-code-123&state=${sessionCode}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Signed in');
    // the page itself, not a JSON string of it (the route declares its answer as text)
    expect(page.body.trimStart().startsWith('<')).toBe(true);
    expect((await call(t.app, 'GET', `/membership/oauth/relay/sessions/${sessionCode}`)).json()).toEqual({ status: 'completed', authCode: 'provider-code-123' });
    expect((await call(t.app, 'GET', `/membership/oauth/relay/sessions/${sessionCode}`)).statusCode).toBe(404);
    // The code was kept encrypted while it waited.
    const [row] = await t.deps.database.rows('select count(*)::int as n from oauth_relay_sessions where auth_code like $1', ['%provider-code-123%']);
    expect(row).toEqual({ n: 0 });
  });

  it('answers a page for an unknown session or a provider error, with the error text escaped', async () => {
    const unknown = await call(t.app, 'GET', '/membership/oauth/relay/callback?code=x&state=NOPE2345');
    expect(unknown.body).toContain('expired');
    const hostile = await call(t.app, 'GET', `/membership/oauth/relay/callback?error=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(hostile.body).not.toContain('<script>');
    expect(hostile.body).toContain('&lt;script&gt;');
    expect((await call(t.app, 'GET', '/membership/oauth/relay/sessions/NOPE2345')).statusCode).toBe(404);
  });

  it('needs a signed-in caller and a provider name', async () => {
    const a = await registeredChurch(t);
    expect((await call(t.app, 'POST', '/membership/oauth/relay/sessions', { body: { provider: 'x' } })).statusCode).toBe(401);
    const bad = await call(t.app, 'POST', '/membership/oauth/relay/sessions', { token: a.token, body: { provider: '' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'provider' });
  });
});
