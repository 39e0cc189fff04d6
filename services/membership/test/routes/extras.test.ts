import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { addGroup, addPerson } from './fixtures';

const t = useMembership();

// B1Admin:src/people/components/PickupPeople.tsx posts [{...row, householdId}] and lists {name, relationship,
// photoUrl, status} by household.
describe('household pickup', () => {
  it('saves, lists and removes who may collect a household’s children', async () => {
    const c = await makeChurch(t);
    const kid = await addPerson(t, c.churchId, { firstName: 'Kid' });
    const grandma = await addPerson(t, c.churchId, { firstName: 'Gran' });
    const edit = c.token(['People.Edit', 'People.View']);
    const saved = await call(t.app, 'POST', '/membership/householdpickup', { token: edit, body: [{ householdId: kid.householdId, name: 'Uncle Bob', relationship: 'Uncle', status: 'notAuthorized' }, { householdId: kid.householdId, personId: grandma.id, name: 'Gran Doe' }] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()[0]).toEqual({ id: expect.any(String), churchId: c.churchId, householdId: kid.householdId, personId: null, name: 'Uncle Bob', photoUrl: null, relationship: 'Uncle', status: 'notAuthorized', notes: null, createdDate: expect.any(String) });
    const list = (await call(t.app, 'GET', `/membership/householdpickup/${kid.householdId}`, { token: edit })).json();
    expect(list.map((p: { name: string; status: string }) => [p.name, p.status])).toEqual([['Gran Doe', 'trusted'], ['Uncle Bob', 'notAuthorized']]);
    // The family reads its own list; another member of the church does not.
    expect((await call(t.app, 'GET', `/membership/householdpickup/${kid.householdId}`, { token: c.token([], { personId: kid.id }) })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/membership/householdpickup/${kid.householdId}`, { token: c.token([], { personId: grandma.id }) })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/membership/householdpickup/${list[0].id}`, { token: edit })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/membership/householdpickup/${kid.householdId}`, { token: edit })).json()).toHaveLength(1);
  });

  it('refuses another church’s household or person, and needs People.Edit to write', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const theirs = await addPerson(t, other.churchId);
    const mine = await addPerson(t, c.churchId);
    const bad = await call(t.app, 'POST', '/membership/householdpickup', { token: c.token(['People.Edit']), body: [{ householdId: theirs.householdId, name: 'X' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].householdId' });
    const badPerson = await call(t.app, 'POST', '/membership/householdpickup', { token: c.token(['People.Edit']), body: { householdId: mine.householdId, personId: theirs.id } });
    expect(badPerson.json().errors[0]).toMatchObject({ param: 'personId' });
    expect((await call(t.app, 'GET', `/membership/householdpickup/${mine.householdId}`, { token: other.token(['People.View']) })).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/householdpickup', body: [], permission: 'People.Edit' }, c.churchId);
  });

  it('keeps only photo addresses a browser may safely load: http(s) or a path of the site', async () => {
    const c = await makeChurch(t);
    const kid = await addPerson(t, c.churchId);
    const edit = c.token(['People.Edit', 'People.View']);
    for (const photoUrl of ['javascript:alert(document.cookie)', ' JavaScript:alert(1)', 'data:text/html;base64,PHNjcmlwdD4=', 'vbscript:x', '//evil.example/x.png', '/\\evil.example/x.png', 'ftp://x/y.png']) {
      const res = await call(t.app, 'POST', '/membership/householdpickup', { token: edit, body: [{ householdId: kid.householdId, name: 'Uncle', photoUrl }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param: '[0].photoUrl', location: 'body' });
    }
    const ok = await call(t.app, 'POST', '/membership/householdpickup', { token: edit, body: [{ householdId: kid.householdId, name: 'Uncle', photoUrl: 'https://cdn.example.org/u.png' }, { householdId: kid.householdId, name: 'Aunt', photoUrl: '/files/a.png' }, { householdId: kid.householdId, name: 'Gran', photoUrl: '' }] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().map((p: { photoUrl: string | null }) => p.photoUrl)).toEqual(['https://cdn.example.org/u.png', '/files/a.png', null]);
    // a person's photo, kept as a URL when it is not an image to store, follows the same rule
    const bad = await call(t.app, 'POST', '/membership/people', { token: edit, body: [{ id: kid.id, photo: 'javascript:alert(1)' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'photo' });
    const good = await call(t.app, 'POST', '/membership/people', { token: edit, body: [{ id: kid.id, photo: 'https://cdn.example.org/kid.png' }] });
    expect(good.statusCode).toBe(200);
    expect(good.json()[0].photo).toBe('https://cdn.example.org/kid.png');
  });
});

// B1Admin:src/serving/components/PlanTypeGroups.tsx posts [{contentType: 'planType', contentId, groupId, settings}]
// and reads /associatedGroups/content/planType/:id.
describe('associated groups', () => {
  it('ties groups to a plan type and lists them by content', async () => {
    const c = await makeChurch(t);
    const groupId = await addGroup(t, c.churchId, 'Band');
    const planTypeId = randomUUID();
    const saved = await call(t.app, 'POST', '/membership/associatedGroups', { token: c.token(['Plans.Edit']), body: [{ contentType: 'planType', contentId: planTypeId, groupId, settings: 'both' }] });
    expect(saved.statusCode).toBe(200);
    const list = (await call(t.app, 'GET', `/membership/associatedGroups/content/planType/${planTypeId}`, { token: c.token() })).json();
    expect(list).toEqual([{ id: saved.json()[0].id, churchId: c.churchId, contentType: 'planType', contentId: planTypeId, groupId, settings: 'both' }]);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/associatedGroups/content/planType/${planTypeId}`, { token: other.token() })).json()).toEqual([]);
    const foreign = await call(t.app, 'POST', '/membership/associatedGroups', { token: other.token(['Plans.Edit']), body: [{ contentType: 'planType', contentId: planTypeId, groupId }] });
    expect(foreign.statusCode).toBe(400);
    expect((await call(t.app, 'DELETE', `/membership/associatedGroups/${list[0].id}`, { token: other.token(['Plans.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/associatedGroups/${list[0].id}`, { token: c.token(['Plans.Edit']) })).statusCode).toBe(200);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/associatedGroups', body: [], permission: 'Plans.Edit' }, c.churchId);
  });
});

// B1Admin:src/site/components/SitesDialog.tsx posts [{name, subDomain}] and lists {id, name, subDomain}.
describe('sites', () => {
  it('adds a website on a free sub-domain, refuses a taken one, and deletes it', async () => {
    const c = await makeChurch(t);
    const sub = `youth${randomUUID().slice(0, 6)}`;
    const saved = await call(t.app, 'POST', '/membership/sites', { token: c.token(['Settings.Edit']), body: [{ name: 'Youth', subDomain: sub.toUpperCase() }] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual([{ id: expect.any(String), churchId: c.churchId, name: 'Youth', subDomain: sub }]);
    expect((await call(t.app, 'GET', '/membership/sites', { token: c.token() })).json()).toEqual(saved.json());
    const other = await makeChurch(t);
    const taken = await call(t.app, 'POST', '/membership/sites', { token: other.token(['Settings.Edit']), body: [{ name: 'Mine', subDomain: sub }] });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().errors[0]).toMatchObject({ param: 'subDomain' });
    const churchSub = (await t.deps.database.rows<{ sub_domain: string }>('select sub_domain from churches where id = $1', [c.churchId]))[0]!.sub_domain;
    expect((await call(t.app, 'POST', '/membership/sites', { token: other.token(['Settings.Edit']), body: [{ name: 'Clash', subDomain: churchSub }] })).statusCode).toBe(400);
    const bad = await call(t.app, 'POST', '/membership/sites', { token: c.token(['Settings.Edit']), body: [{ name: 'Bad', subDomain: 'first church!' }] });
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].subDomain' });
    expect((await call(t.app, 'DELETE', `/membership/sites/${saved.json()[0].id}`, { token: other.token(['Settings.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/sites/${saved.json()[0].id}`, { token: c.token(['Settings.Edit']) })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/membership/sites', { token: c.token() })).json()).toEqual([]);
  });
});

// B1Admin:src/settings/components/DomainSettingsEdit.tsx saves each domain with the site it serves (`siteId`).
describe('domains of sites', () => {
  it('points a domain at one of the church’s sites, and back at the main site when the site goes', async () => {
    const c = await makeChurch(t);
    const edit = c.token(['Settings.Edit']);
    const [site] = (await call(t.app, 'POST', '/membership/sites', { token: edit, body: [{ name: 'Camp', subDomain: `camp${randomUUID().slice(0, 6)}` }] })).json();
    const name = `camp-${randomUUID().slice(0, 8)}.example.org`;
    const saved = await call(t.app, 'POST', '/membership/domains', { token: edit, body: [{ domainName: name, siteId: site.id }] });
    expect(saved.json()).toEqual([expect.objectContaining({ domainName: name, siteId: site.id })]);
    const other = await makeChurch(t);
    const foreign = await call(t.app, 'POST', '/membership/domains', { token: other.token(['Settings.Edit']), body: [{ domainName: `x-${randomUUID().slice(0, 8)}.example.org`, siteId: site.id }] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0]).toEqual({ msg: 'siteId is not a record of this church', param: '[0].siteId', location: 'body' });
    await call(t.app, 'DELETE', `/membership/sites/${site.id}`, { token: edit });
    expect((await call(t.app, 'GET', '/membership/domains', { token: edit })).json()).toEqual([expect.objectContaining({ domainName: name, siteId: null })]);
  });
});

// B1Admin:src/serverAdmin/components/ServerHealthTab.tsx reads {environment, groups[{group, items[{key, label,
// configured, detail}]}]}; JobsTab.tsx reads {latest, recentFailures} of {jobName, status, startedAt, errorMessage}.
describe('server health', () => {
  it('is for server admins only, and answers the configuration and the outbox’s jobs', async () => {
    const c = await makeChurch(t);
    expect((await call(t.app, 'GET', '/membership/serverHealth', { token: c.token('all') })).statusCode).toBe(401);
    const admin = c.token([], { serverAdmin: true });
    const health = (await call(t.app, 'GET', '/membership/serverHealth', { token: admin })).json();
    expect(health.environment).toBe('test');
    expect(health.groups.find((g: { group: string }) => g.group === 'Core').items).toContainEqual({ key: 'jwtSecret', label: 'JWT Secret', configured: true });
    await t.deps.database.rows(`insert into job_outbox (id, queue, name, data, state, last_error) values (gen_random_uuid(), 'membership', 'membership.email', '{}'::jsonb, 'failed', 'SendGrid answered 401')`, []);
    const jobs = (await call(t.app, 'GET', '/membership/serverHealth/jobs', { token: admin })).json();
    expect(jobs.recentFailures[0]).toMatchObject({ jobName: 'membership.email', status: 'failed', errorMessage: 'SendGrid answered 401', startedAt: expect.any(String) });
    expect(jobs.depth.failed).toBeGreaterThanOrEqual(1);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/serverHealth/jobs', permission: 'Server.Admin' }, c.churchId);
  });
});
