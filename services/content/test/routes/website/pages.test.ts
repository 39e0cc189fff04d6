import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { elements, pages, sections } from '../../../src/db/website';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();

const tree = (sectionCount: number, elementsEach: number) => ({
  title: 'Welcome',
  url: 'Welcome/',
  sections: Array.from({ length: sectionCount }, (_, s) => ({
    background: `#${s}`,
    textColor: 'dark',
    elements: Array.from({ length: elementsEach }, (_, e) => ({ elementType: 'text', answers: { text: `s${s}e${e}` } })),
  })),
});

describe('POST /content/pages', () => {
  it('creates and updates in a batch, normalising urls and refusing a taken url with 400 naming url', async () => {
    const c = church();
    const [home, about] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ url: '/', title: 'Home' }, { url: 'About-Us/', title: 'About' }] });
    expect(home).toMatchObject({ id: expect.any(String), churchId: c.churchId, siteId: null, url: '/', title: 'Home', visibility: 'everyone', groupIds: null });
    expect(about.url).toBe('/about-us');
    const clash = await call(t.app, 'POST', '/content/pages', { token: c.editor, body: { url: '/about-us/' } });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().errors[0]).toMatchObject({ param: 'url' });
    const missing = await call(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ title: 'no url' }] });
    expect(missing.json().errors[0]).toMatchObject({ param: '[0].url' });
    const [renamed] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: { id: about.id, title: 'About us' } });
    expect(renamed).toMatchObject({ url: '/about-us', title: 'About us' });
    const list = await ok(t.app, 'GET', '/content/pages', { token: c.anyone });
    expect(list.map((p: { url: string }) => p.url)).toEqual(['/', '/about-us']);
    expect(await ok(t.app, 'GET', `/content/pages/${home.id}`, { token: c.anyone })).toEqual(home);
  });

  it('needs Content.Edit; another church cannot read, change or delete', async () => {
    const a = church();
    const b = church();
    expect((await call(t.app, 'POST', '/content/pages', { token: a.anyone, body: { url: '/x' } })).statusCode).toBe(401);
    const [page] = await ok(t.app, 'POST', '/content/pages', { token: a.editor, body: { url: '/mine' } });
    expect((await call(t.app, 'GET', `/content/pages/${page.id}`, { token: b.editor })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/pages', { token: b.editor, body: { id: page.id, url: '/stolen' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/pages/${page.id}`, { token: b.editor })).statusCode).toBe(404);
    expect(await ok(t.app, 'GET', '/content/pages', { token: b.anyone })).toEqual([]);
    const [row] = await t.app.db.select().from(pages).where(eq(pages.id, page.id));
    expect(row!.url).toBe('/mine');
  });
});

describe('DELETE /content/pages/:id', () => {
  it('deletes the page with its sections and elements', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(2, 3) });
    await ok(t.app, 'DELETE', `/content/pages/${page.id}`, { token: c.editor });
    expect(await t.app.db.select().from(sections).where(eq(sections.pageId, page.id))).toEqual([]);
    expect(await t.app.db.select().from(elements).where(eq(elements.churchId, c.churchId))).toEqual([]);
  });
});

describe('POST /content/pages/importTree', () => {
  it('builds the page under the caller church, ignoring ids and churchId in the body', async () => {
    const c = church();
    const other = church();
    const body = { ...tree(2, 2), id: other.churchId, churchId: other.churchId };
    body.sections[0] = { ...body.sections[0]!, id: other.churchId, elements: [{ elementType: 'row', id: other.churchId, elements: [{ elementType: 'column', answers: { size: 12 } }] }] } as never;
    const page = await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body });
    expect(page).toMatchObject({ churchId: c.churchId, url: '/welcome', title: 'Welcome' });
    expect(page.id).not.toBe(other.churchId);
    expect(page.sections).toHaveLength(2);
    expect(page.sections[0].elements[0]).toMatchObject({ elementType: 'row', elements: [{ elementType: 'column', answers: { size: 12 } }] });
    expect(page.sections.map((s: { sort: number }) => s.sort)).toEqual([1, 2]);
    const rows = await t.app.db.select().from(elements).where(eq(elements.churchId, c.churchId));
    expect(rows).toHaveLength(2 + 2);
  });

  it('refuses more than 30 sections or 500 elements with a 400 naming the limit, writing nothing', async () => {
    const c = church();
    const many = await call(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(31, 1) });
    expect(many.statusCode).toBe(400);
    expect(many.json().errors[0]).toMatchObject({ param: 'sections', msg: 'at most 30 sections' });
    const big = await call(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(30, 17) });
    expect(big.statusCode).toBe(400);
    expect(big.json().errors[0]).toMatchObject({ param: 'elements', msg: 'at most 500 elements' });
    expect(await t.app.db.select().from(pages).where(eq(pages.churchId, c.churchId))).toEqual([]);
    await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(25, 20) });
  });
});

describe('POST /content/pages/temp/ai', () => {
  it('creates a whole page, then replaces its content when given its id', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/temp/ai', { token: c.editor, body: tree(3, 2) });
    expect(page.sections).toHaveLength(3);
    const again = await ok(t.app, 'POST', '/content/pages/temp/ai', { token: c.editor, body: { ...tree(1, 1), id: page.id, title: 'New' } });
    expect(again).toMatchObject({ id: page.id, title: 'New' });
    expect(again.sections).toHaveLength(1);
    expect(await t.app.db.select().from(sections).where(eq(sections.pageId, page.id))).toHaveLength(1);
  });
});

describe('POST /content/pages/duplicate/:id', () => {
  it('copies the page with its sections and elements under a free url', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(2, 3) });
    const copy = await ok(t.app, 'POST', `/content/pages/duplicate/${page.id}`, { token: c.editor });
    expect(copy).toMatchObject({ url: '/welcome-copy', title: 'Welcome (copy)' });
    expect(copy.sections.map((s: { elements: unknown[] }) => s.elements.length)).toEqual([3, 3]);
    expect(copy.sections[0].id).not.toBe(page.sections[0].id);
    const second = await ok(t.app, 'POST', `/content/pages/duplicate/${page.id}`, { token: c.editor });
    expect(second.url).toBe('/welcome-copy-2');
    expect((await call(t.app, 'POST', `/content/pages/duplicate/${page.id}`, { token: church().editor })).statusCode).toBe(404);
  });
});

describe('GET /content/pages/:churchId/tree', () => {
  it('answers the tree by url without internal ids, and by id with them', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(1, 2) });
    const byUrl = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/Welcome`);
    expect(byUrl).toEqual({
      name: 'Welcome',
      url: '/welcome',
      title: 'Welcome',
      metaDescription: null,
      layout: null,
      visibility: 'everyone',
      groupIds: null,
      publishedAt: null,
      sections: [
        {
          zone: 'main',
          background: '#0',
          textColor: 'dark',
          headingColor: null,
          linkColor: null,
          sort: 1,
          answers: {},
          styles: {},
          animations: {},
          // B1App:src/components/Section.tsx reads a section's answersJSON, Element.tsx an element's stylesJSON
          // (an element's answers it reads as the object, so the public tree leaves out its answersJSON).
          answersJSON: null,
          stylesJSON: null,
          animationsJSON: null,
          elements: [1, 0].reverse().map((e) => ({
            elementType: 'text',
            sort: e + 1,
            answers: { text: `s0e${e}` },
            styles: {},
            animations: {},
            stylesJSON: null,
            animationsJSON: null,
            elements: [],
          })),
        },
      ],
    });
    const byId = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${page.id}`, { token: c.editor });
    expect(byId.sections[0].id).toEqual(page.sections[0].id);
    expect((await call(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${randomUUID()}`)).statusCode).toBe(404);
    const none = await call(t.app, 'GET', `/content/pages/${c.churchId}/tree`);
    expect(none.json().errors[0]).toMatchObject({ param: 'url', location: 'query' });
  });

  it('is served with an ETag (304 when unchanged) and rebuilt after any write to the tree', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: tree(1, 1) });
    const url = `/content/pages/${c.churchId}/tree?url=/welcome`;
    const first = await call(t.app, 'GET', url);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await call(t.app, 'GET', url, { headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    const elementId = page.sections[0].elements[0].id;
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { id: elementId, answers: { text: 'changed' } } });
    const after = await call(t.app, 'GET', url, { headers: { 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(after.json().sections[0].elements[0].answers).toEqual({ text: 'changed' });
    const gz = await call(t.app, 'GET', url, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
  });

  it('keeps each church\'s tree apart and applies a changed gate on the next read', async () => {
    const a = church();
    const b = church();
    const pageA = await ok(t.app, 'POST', '/content/pages/importTree', { token: a.editor, body: tree(1, 1) });
    await ok(t.app, 'POST', '/content/pages/importTree', { token: b.editor, body: tree(2, 1) });
    const get = (c: { churchId: string }, token?: string) => ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/welcome`, { token });
    expect((await get(a)).sections).toHaveLength(1);
    expect((await get(b)).sections).toHaveLength(2);
    // Gated after it was kept: restricted at once, to anyone but a member; opened again: public at once.
    await ok(t.app, 'POST', '/content/pages', { token: a.editor, body: { id: pageA.id, visibility: 'members' } });
    expect(await get(a)).toEqual({ restricted: true, visibility: 'members' });
    expect((await get(a, a.token([], { membershipStatus: 'Member' }))).sections).toHaveLength(1);
    expect((await get(b)).sections).toHaveLength(2);
    await ok(t.app, 'POST', '/content/pages', { token: a.editor, body: { id: pageA.id, visibility: 'everyone' } });
    expect((await get(a)).sections).toHaveLength(1);
  });

  it('gates pages: restricted without a token, open to the right member, staff or group', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: { ...tree(1, 1), url: '/members', visibility: 'members' } });
    await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: { ...tree(1, 1), url: '/staff', visibility: 'staff' } });
    await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: { ...tree(1, 1), url: '/team', visibility: 'groups', groupIds: [groupId] } });
    const get = (url: string, token?: string) => ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=${url}`, { token });
    const member = c.token([], { membershipStatus: 'Member' });
    const staff = c.token([], { membershipStatus: 'Staff' });
    const visitor = c.token([], { membershipStatus: 'Visitor' });
    const outsider = church().token([], { membershipStatus: 'Staff' });
    expect(await get('/members')).toEqual({ restricted: true, visibility: 'members' });
    expect(await get('/members', visitor)).toEqual({ restricted: true, visibility: 'members' });
    expect(await get('/members', outsider)).toEqual({ restricted: true, visibility: 'members' });
    expect((await get('/members', member)).sections).toHaveLength(1);
    expect(await get('/staff', member)).toEqual({ restricted: true, visibility: 'staff' });
    expect((await get('/staff', staff)).sections).toHaveLength(1);
    expect(await get('/team', member)).toEqual({ restricted: true, visibility: 'groups' });
    t.membership.groupsOf.set(c.personId, [groupId]);
    expect((await get('/team', member)).sections).toHaveLength(1);
    expect((await get('/team', c.editor)).sections).toHaveLength(1);
    const list = await ok(t.app, 'GET', `/content/pages/public/${c.churchId}`);
    expect(list).toEqual([]);
  });
});

describe('GET /content/pages/public/:churchId', () => {
  it('lists only pages open to everyone, with url, title and description', async () => {
    const c = church();
    await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ url: '/a', title: 'A', metaDescription: 'about A' }, { url: '/b', visibility: 'members' }] });
    expect(await ok(t.app, 'GET', `/content/pages/public/${c.churchId}`)).toEqual([{ url: '/a', title: 'A', metaDescription: 'about A' }]);
  });
});
