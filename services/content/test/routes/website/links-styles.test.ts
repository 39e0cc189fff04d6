import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();

describe('/content/links', () => {
  it('saves, sorts by category, filters by category and by who may see each link', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const saved = await ok(t.app, 'POST', '/content/links', {
      token: c.editor,
      body: [
        { category: 'website', text: 'Home', url: '/' },
        { category: 'footer', text: 'Contact', url: '/contact' },
        { category: 'website', text: 'Members', url: '/m', visibility: 'members' },
        { category: 'website', text: 'Staff', url: '/s', visibility: 'staff' },
        { category: 'website', text: 'Team', url: '/t', visibility: 'groups', groupIds: [groupId] },
        { category: 'website', text: 'Signed in', url: '/v', visibility: 'visitors' },
      ],
    });
    expect(saved.map((l: { category: string; sort: number }) => `${l.category}:${l.sort}`)).toEqual(['footer:1', 'website:1', 'website:2', 'website:3', 'website:4', 'website:5']);
    await ok(t.app, 'POST', '/content/links', { token: c.editor, body: { category: 'website', text: 'First', sort: 0 } });
    const site = await ok(t.app, 'GET', '/content/links?category=website', { token: c.editor });
    expect(site.map((l: { text: string }) => l.text)).toEqual(['First', 'Home', 'Members', 'Staff', 'Team', 'Signed in']);
    expect(site.map((l: { sort: number }) => l.sort)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ok(t.app, 'GET', '/content/links', { token: c.editor })).toHaveLength(7);
    // a signed-in guest reads only the links open to them (gated ones are the editors' and their audience's)
    expect(await ok(t.app, 'GET', '/content/links', { token: c.anyone })).toHaveLength(4);
    expect((await ok(t.app, 'GET', `/content/links/church/${c.churchId}?category=website`)).map((l: { text: string }) => l.text)).toEqual(['First', 'Home']);
    const filtered = (token: string) => ok(t.app, 'GET', `/content/links/church/${c.churchId}/filtered?category=website`, { token }).then((l) => l.map((x: { text: string }) => x.text));
    expect(await filtered(c.token([], { membershipStatus: 'Visitor' }))).toEqual(['First', 'Home', 'Signed in']);
    expect(await filtered(c.token([], { membershipStatus: 'Member' }))).toEqual(['First', 'Home', 'Members', 'Signed in']);
    expect(await filtered(c.token([], { membershipStatus: 'Staff' }))).toEqual(['First', 'Home', 'Members', 'Staff', 'Signed in']);
    t.membership.groupsOf.set(c.personId, [groupId]);
    expect(await filtered(c.token([], { membershipStatus: 'Visitor' }))).toEqual(['First', 'Home', 'Team', 'Signed in']);
    expect(await ok(t.app, 'GET', `/content/links/church/${c.churchId}/filtered`, { token: church().editor })).toEqual([]);
    // by id: a link moved to another category is renumbered there, and its old category closes up
    const [moved] = await ok(t.app, 'POST', '/content/links', { token: c.editor, body: { id: saved[5].id, category: 'footer' } });
    expect(moved).toMatchObject({ id: saved[5].id, category: 'footer', text: 'Signed in', sort: 2 });
    expect((await call(t.app, 'POST', '/content/links', { token: church().editor, body: { id: saved[5].id, text: 'x' } })).statusCode).toBe(404);
    await ok(t.app, 'POST', '/content/links', { token: c.editor, body: { id: saved[5].id, category: 'website', sort: 99 } });
    await ok(t.app, 'DELETE', `/content/links/${saved[1].id}`, { token: c.editor });
    expect((await ok(t.app, 'GET', '/content/links?category=website', { token: c.editor })).map((l: { sort: number }) => l.sort)).toEqual([1, 2, 3, 4, 5]);
    expect(await ok(t.app, 'GET', `/content/links/${saved[0].id}`, { token: c.anyone })).toMatchObject({ text: 'Contact' });
    expect((await call(t.app, 'GET', `/content/links/${saved[0].id}`, { token: church().anyone })).statusCode).toBe(404);
    const bad = await call(t.app, 'POST', '/content/links', { token: c.editor, body: [{ visibility: 'friends' }] });
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].visibility' });
  });
});

describe('/content/globalStyles', () => {
  it('answers defaults until saved, keeps one set per church, and deletes back to defaults', async () => {
    const c = church();
    const defaults = await ok(t.app, 'GET', `/content/globalStyles/church/${c.churchId}`);
    expect(defaults).toMatchObject({ id: null, churchId: c.churchId, fonts: expect.stringContaining('Roboto'), palette: expect.stringContaining('#') });
    expect(await ok(t.app, 'GET', '/content/globalStyles', { token: c.anyone })).toEqual(defaults);
    const [saved] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: { palette: '{"accent":"#123456"}', customCss: 'h1{}' } });
    expect(saved).toMatchObject({ id: expect.any(String), palette: '{"accent":"#123456"}', fonts: defaults.fonts });
    const [again] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: { fonts: '{"body":"Lato"}' } });
    expect(again).toMatchObject({ id: saved.id, fonts: '{"body":"Lato"}', palette: '{"accent":"#123456"}' });
    expect(await ok(t.app, 'GET', `/content/globalStyles/church/${c.churchId}`)).toEqual(again);
    // by id: the apps' `customJS` is saved as `customJs`; another church's id is a 404
    const [byId] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: { id: saved.id, customJS: 'go()' } });
    expect(byId).toMatchObject({ id: saved.id, customJs: 'go()', customJS: 'go()', fonts: '{"body":"Lato"}' });
    expect((await call(t.app, 'POST', '/content/globalStyles', { token: church().editor, body: { id: saved.id, fonts: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/globalStyles/${saved.id}`, { token: church().editor })).statusCode).toBe(404);
    await ok(t.app, 'DELETE', `/content/globalStyles/${saved.id}`, { token: c.editor });
    expect((await ok(t.app, 'GET', '/content/globalStyles', { token: c.anyone })).id).toBeNull();
    expect((await call(t.app, 'POST', '/content/globalStyles', { token: c.anyone, body: {} })).statusCode).toBe(401);
  });
});
