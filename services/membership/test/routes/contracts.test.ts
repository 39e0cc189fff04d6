import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { API_NAMES } from '@church/auth';
import { useMembership } from '../setup';
import { PASSWORD, claimsOf, joinAsGuest, makeUser, registeredChurch } from '../identity-factories';

// Contract tests: the shapes ChurchApps' own apps read from membership, each named for the client file that reads
// it, so that a later change cannot break the apps silently.
const t = useMembership();

describe('contracts with the apps', () => {
  // AppHelper:packages/login/src/LoginPage.tsx (handleLoginSuccess) reads resp.user.jwt, resp.user names and email,
  // resp.userChurches[] (forEach over apis), and each user-church's church.id/subDomain, person.id, jwt and
  // apis[{keyName, permissions, jwt}]; Helpers' UserHelper.setupApiHelper reads apis[].keyName and jwt.
  it('login answers user.jwt and userChurches with a token per API', async () => {
    const { user, church, personId } = await registeredChurch(t);
    const res = await call(t.app, 'POST', '/membership/users/login', { body: { email: user.email, password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toEqual({ id: user.id, firstName: 'Ada', lastName: 'Lovelace', email: user.email, jwt: expect.any(String) });
    expect(Array.isArray(body.userChurches)).toBe(true);
    const [uc] = body.userChurches;
    expect(uc.church).toMatchObject({ id: church.id, name: church.name, subDomain: church.subDomain });
    expect(uc.person).toEqual({ id: personId, membershipStatus: 'Staff' });
    expect(uc.jwt).toEqual(expect.any(String));
    expect(uc.apis.map((a: { keyName: string }) => a.keyName)).toEqual([...API_NAMES]);
    for (const api of uc.apis) {
      expect(api).toEqual({ keyName: expect.any(String), permissions: expect.any(Array), jwt: uc.jwt });
      for (const p of api.permissions) expect(p).toEqual(expect.objectContaining({ contentType: expect.any(String), action: expect.any(String) }));
    }
    // The clients decode `exp` from the token.
    expect(claimsOf(uc.jwt).exp).toEqual(expect.any(Number));
    // The spec's keys stay.
    expect(body).toMatchObject({ churches: [expect.objectContaining({ church: expect.any(Object), apis: expect.any(Array) })], token: uc.jwt });
  });

  // AppHelper:packages/login/src/LoginPage.tsx (selectChurch) posts churches/select and hands the answer, one
  // user-church, to UserHelper.setupApiHelper; then it reads userChurch.church.id.
  it('churches/select answers one user-church', async () => {
    const a = await registeredChurch(t);
    const stranger = await makeUser(t);
    const login = (await call(t.app, 'POST', '/membership/users/login', { body: { email: stranger.email, password: PASSWORD } })).json();
    const res = await call(t.app, 'POST', '/membership/churches/select', { token: login.user.jwt, body: { churchId: a.church.id } });
    expect(res.statusCode).toBe(200);
    const uc = res.json();
    expect(Object.keys(uc).sort()).toEqual(['apis', 'church', 'groups', 'jwt', 'person', 'token']);
    expect(uc.church.id).toBe(a.church.id);
    expect(uc.apis.every((api: { jwt: string }) => api.jwt === uc.jwt)).toBe(true);
  });

  // B1Admin:src/groups/GroupsPage.tsx splits `tags` and maps `labelArray`; GroupAdd.tsx posts a new group with
  // `id: ""` and tags "standard".
  it('a group carries tags and labels as strings and labelArray as a list; id "" is a new group', async () => {
    const { token } = await registeredChurch(t);
    const res = await call(t.app, 'POST', '/membership/groups', { token, body: [{ id: '', name: 'Small Group', categoryName: '', tags: 'standard', labels: 'north,weekly' }] });
    expect(res.statusCode).toBe(200);
    const [group] = res.json();
    expect(group).toMatchObject({ id: expect.any(String), name: 'Small Group', tags: 'standard', labels: 'north,weekly', labelArray: ['north', 'weekly'] });
    expect(typeof group.tags.split).toBe('function');
    const [listed] = (await call(t.app, 'GET', '/membership/groups/tag/standard', { token })).json();
    // The staff lists add memberCount (B1Admin's groups page).
    expect(listed).toEqual({ ...group, memberCount: 0 });
  });

  // Helpers' ApiHelper throws `new Error(json.errors[0])` on any non-2xx: errors[0] is what the person reads.
  it('answers errors the apps can show: a sentence at errors[0] for 401, 404 and 409; {msg, param, location} for 400', async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const unauthorized = await call(t.app, 'GET', '/membership/settings');
    expect(unauthorized.statusCode).toBe(401);
    expect(typeof unauthorized.json().errors[0]).toBe('string');
    const guest = await joinAsGuest(t, a.church.id);
    const missingPermission = await call(t.app, 'GET', '/membership/settings', { token: guest.token });
    expect([missingPermission.statusCode, typeof missingPermission.json().errors[0]]).toEqual([401, 'string']);
    const [group] = (await call(t.app, 'POST', '/membership/groups', { token: a.token, body: { name: 'Mine' } })).json();
    const foreign = await call(t.app, 'GET', `/membership/groups/${group.id}`, { token: b.token });
    expect([foreign.statusCode, foreign.json()]).toEqual([404, { errors: ['Group not found'] }]);
    const domain = `d-${randomUUID().slice(0, 8)}.example.test`;
    await call(t.app, 'POST', '/membership/domains', { token: a.token, body: { domainName: domain } });
    const taken = await call(t.app, 'POST', '/membership/domains', { token: b.token, body: { domainName: domain } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().errors).toEqual([expect.any(String)]);
    const invalid = await call(t.app, 'POST', '/membership/groups', { token: a.token, body: [{ name: '' }] });
    expect(invalid.json()).toEqual({ errors: [{ msg: expect.any(String), param: '[0].name', location: 'body' }] });
  });

  // The apps' editors send new rows with `id: ""`: CreatePerson.tsx (households, people), the settings editors,
  // CustomFieldEdit.tsx (person fields).
  it('takes id "" as a new row wherever the apps create', async () => {
    const { token, church } = await registeredChurch(t);
    const [household] = (await call(t.app, 'POST', '/membership/households', { token, body: [{ id: '', name: 'Smith' }] })).json();
    expect(household).toMatchObject({ id: expect.any(String), name: 'Smith' });
    const [person] = (await call(t.app, 'POST', '/membership/people', { token, body: [{ id: '', householdId: household.id, name: { first: 'Sam', last: 'Smith', display: 'Sam Smith' }, contactInfo: { email: '' } }] })).json();
    expect(person).toMatchObject({ id: expect.any(String), householdId: household.id, name: { display: 'Sam Smith' } });
    const [setting] = (await call(t.app, 'POST', '/membership/settings', { token, body: [{ id: '', churchId: church.id, keyName: 'primaryColor', value: '#000000', public: 1 }] })).json();
    expect(setting).toMatchObject({ id: expect.any(String), public: true });
    const [field] = (await call(t.app, 'POST', '/membership/personfields', { token, body: [{ id: '', name: 'Tee size', fieldType: 'Textbox', choices: null }] })).json();
    expect(field).toMatchObject({ id: expect.any(String), name: 'Tee size' });
    const [role] = (await call(t.app, 'POST', '/membership/roles', { token, body: [{ id: '', name: 'Ushers' }] })).json();
    expect(role).toMatchObject({ id: expect.any(String), name: 'Ushers' });
  });

  // B1Admin:src/settings/components/ChurchSettingsEdit.tsx and ChurchInfoSection.tsx post back the church they read.
  it('takes back the church it answered', async () => {
    const { token, church } = await registeredChurch(t);
    const loaded = (await call(t.app, 'GET', `/membership/churches/${church.id}?include=permissions`, { token })).json();
    const res = await call(t.app, 'POST', '/membership/churches', { token, body: [{ ...loaded, name: 'Renamed Church', settings: [] }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0]).toMatchObject({ id: church.id, name: 'Renamed Church', subDomain: church.subDomain });
  });
});
