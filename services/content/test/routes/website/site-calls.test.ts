import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { elements, sections } from '../../../src/db/website';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];

describe('POST /content/sections/tree (B1Admin ContentEditor.tsx, SiteTemplatePicker.tsx)', () => {
  it('creates a section with its nested elements where its sort puts it, renumbering the zone', async () => {
    const a = makeChurch();
    const token = a.token(EDIT);
    const [page] = (await call(t.app, 'POST', '/content/pages', { token, body: [{ url: '/about', title: 'About' }] })).json();
    const [first, second] = (await call(t.app, 'POST', '/content/sections', { token, body: [{ pageId: page.id }, { pageId: page.id }] })).json();
    // the layout switch: the new section just before `second` (sort - 0.05), as JSON text the editor writes
    const res = await call(t.app, 'POST', '/content/sections/tree', {
      token,
      body: {
        section: {
          pageId: page.id,
          zone: 'main',
          sort: second.sort - 0.05,
          answersJSON: '{"name":"Hero"}',
          elements: [{ elementType: 'row', answersJSON: '{"columns":"6,6"}', elements: [{ elementType: 'column', answers: { size: 6 }, elements: [{ elementType: 'text', answers: { text: 'Hi' } }] }] }],
        },
      },
    });
    expect(res.statusCode).toBe(200);
    const created = res.json();
    expect(created).toMatchObject({ pageId: page.id, zone: 'main', sort: 2, answers: { name: 'Hero' }, answersJSON: '{"name":"Hero"}' });
    expect(created.elements[0]).toMatchObject({ elementType: 'row', elements: [expect.objectContaining({ elementType: 'column', elements: [expect.objectContaining({ elementType: 'text' })] })] });
    const order = await t.app.db.select({ id: sections.id, sort: sections.sort }).from(sections).where(eq(sections.pageId, page.id)).orderBy(sections.sort);
    expect(order.map((s) => s.id)).toEqual([first.id, created.id, second.id]);
    expect(order.map((s) => s.sort)).toEqual([1, 2, 3]);
    expect(await t.app.db.select().from(elements).where(eq(elements.sectionId, created.id))).toHaveLength(3);
  });

  it('refuses without a page or block (400), another church’s page (404, nothing written) and a missing permission (401)', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const [page] = (await call(t.app, 'POST', '/content/pages', { token: a.token(EDIT), body: [{ url: '/x' }] })).json();
    const none = await call(t.app, 'POST', '/content/sections/tree', { token: a.token(EDIT), body: { section: { zone: 'siteFooter' } } });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].param).toBe('pageId');
    expect((await call(t.app, 'POST', '/content/sections/tree', { token: b.token(EDIT), body: { section: { pageId: page.id } } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/sections/tree', { token: a.token(), body: { section: { pageId: page.id } } })).statusCode).toBe(401);
    const foreignBlock = await call(t.app, 'POST', '/content/sections/tree', { token: a.token(EDIT), body: { section: { pageId: page.id, targetBlockId: randomUUID() } } });
    expect(foreignBlock.statusCode).toBe(400);
    expect(await t.app.db.select().from(sections).where(eq(sections.pageId, page.id))).toEqual([]);
    const bad = await call(t.app, 'POST', '/content/sections/tree', { token: a.token(EDIT), body: { section: { pageId: page.id, answersJSON: 'not json' } } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('the calls the apps write with a query glued to the path (GET /content/pages:p, /blocks:p, /globalStyles:p)', () => {
  it('`:p` is `?siteId=<id>` (PageHelper.ts, BlocksPage.tsx, SiteTemplatePicker.tsx): each answers that site’s rows', async () => {
    const a = makeChurch();
    const token = a.token(EDIT);
    const siteId = randomUUID();
    await call(t.app, 'POST', '/content/pages', { token, body: [{ url: '/main-home', title: 'Main' }, { url: '/site-home', title: 'Site', siteId }] });
    await call(t.app, 'POST', '/content/blocks', { token, body: [{ name: 'Main block', blockType: 'elementBlock' }, { name: 'Site block', blockType: 'elementBlock', siteId }] });
    await call(t.app, 'POST', '/content/globalStyles', { token, body: { palette: '{"primary":"#111"}', siteId } });
    expect((await call(t.app, 'GET', `/content/pages?siteId=${siteId}`, { token })).json().map((p: { title: string }) => p.title)).toEqual(['Site']);
    expect((await call(t.app, 'GET', '/content/pages', { token })).json().map((p: { title: string }) => p.title)).toEqual(['Main']);
    // a site's blocks list also holds the main site's shared blocks
    expect((await call(t.app, 'GET', `/content/blocks?siteId=${siteId}`, { token })).json().map((b: { name: string }) => b.name).sort()).toEqual(['Main block', 'Site block']);
    expect((await call(t.app, 'GET', '/content/blocks', { token })).json().map((b: { name: string }) => b.name)).toEqual(['Main block']);
    expect((await call(t.app, 'GET', `/content/globalStyles?siteId=${siteId}`, { token })).json()).toMatchObject({ siteId, palette: '{"primary":"#111"}' });
    expect((await call(t.app, 'GET', '/content/globalStyles', { token })).json()).toMatchObject({ id: null });
    expect((await call(t.app, 'GET', '/content/pages?siteId=not-an-id', { token })).statusCode).toBe(400);
  });
});
