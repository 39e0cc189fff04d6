import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, signedCall } from '@church/common/testing';
import { siteRemoved } from '@church/common';
import { blocks, elements, globalStyles, links, pageHistory, pages, posts, sections } from '../../../src/db/website';
import { definition } from '../../../src/app';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];

/** A call signed as another module's internal client signs it. */
const signed = (url: string, body: unknown) => signedCall(t.app, url, body);

async function siteWithContent(c: ReturnType<typeof makeChurch>, siteId: string | null) {
  const token = c.token(EDIT);
  const [page] = (await call(t.app, 'POST', '/content/pages', { token, body: [{ url: '/home', title: 'Home', siteId }] })).json();
  const [section] = (await call(t.app, 'POST', '/content/sections', { token, body: [{ pageId: page.id, zone: 'main' }] })).json();
  await call(t.app, 'POST', '/content/elements', { token, body: [{ sectionId: section.id, elementType: 'text', answers: { text: 'hi' } }] });
  const [block] = (await call(t.app, 'POST', '/content/blocks', { token, body: [{ name: 'Footer', blockType: 'footerBlock', siteId }] })).json();
  await call(t.app, 'POST', '/content/links', { token, body: [{ text: 'Home', url: '/', siteId }] });
  await call(t.app, 'POST', '/content/globalStyles', { token, body: { palette: '{}', siteId } });
  await call(t.app, 'POST', '/content/pageHistory', { token, body: { pageId: page.id } });
  return { page, section, block };
}

describe('content.siteRemoved (membership removed a site)', () => {
  it('is owned by content and removes that site’s pages, their trees and history, blocks, links and styles, and nothing else', async () => {
    expect(definition.owns?.map((c) => c.name)).toContain('content.siteRemoved');
    const a = makeChurch();
    const b = makeChurch();
    const siteId = randomUUID();
    const gone = await siteWithContent(a, siteId);
    const main = await siteWithContent(a, null);
    // another church naming the same site id keeps its rows
    const other = await siteWithContent(b, siteId);

    await t.deps.queue.enqueue(siteRemoved, { churchId: a.churchId, siteId });
    await t.drain();

    expect(await t.app.db.select().from(pages).where(eq(pages.id, gone.page.id))).toEqual([]);
    expect(await t.app.db.select().from(sections).where(eq(sections.id, gone.section.id))).toEqual([]);
    expect(await t.app.db.select().from(elements).where(eq(elements.sectionId, gone.section.id))).toEqual([]);
    expect(await t.app.db.select().from(blocks).where(eq(blocks.id, gone.block.id))).toEqual([]);
    expect(await t.app.db.select().from(pageHistory).where(eq(pageHistory.pageId, gone.page.id))).toEqual([]);
    const rowsOf = async (churchId: string) => ({
      pages: (await t.app.db.select().from(pages).where(eq(pages.churchId, churchId))).length,
      links: (await t.app.db.select().from(links).where(eq(links.churchId, churchId))).length,
      styles: (await t.app.db.select().from(globalStyles).where(eq(globalStyles.churchId, churchId))).length,
      blocks: (await t.app.db.select().from(blocks).where(eq(blocks.churchId, churchId))).length,
    });
    expect(await rowsOf(a.churchId)).toEqual({ pages: 1, links: 1, styles: 1, blocks: 1 });
    expect(await rowsOf(b.churchId)).toEqual({ pages: 1, links: 1, styles: 1, blocks: 1 });
    expect((await t.app.db.select().from(pages).where(eq(pages.id, main.page.id)))[0]!.siteId).toBeNull();
    expect((await t.app.db.select().from(pages).where(eq(pages.id, other.page.id)))).toHaveLength(1);

    // asked again (a retry) it changes nothing more
    await t.deps.queue.enqueue(siteRemoved, { churchId: a.churchId, siteId });
    await t.drain();
    expect(await rowsOf(a.churchId)).toEqual({ pages: 1, links: 1, styles: 1, blocks: 1 });
  });
});

describe('POST /content/internal/gdpr/export and /anonymize', () => {
  it('exports the posts a person is the author of, and unnames them, keeping the posts; unsigned calls are 401', async () => {
    const a = makeChurch();
    const b = makeChurch();
    // a person membership answers for in either church (the gdpr routes take the person's id as given)
    const person = randomUUID();
    t.membership.names.set(person, 'Pat Doe');
    const [mine] = (await call(t.app, 'POST', '/content/posts', { token: a.token(EDIT), body: [{ title: 'By the person', authorId: person }] })).json();
    await call(t.app, 'POST', '/content/posts', { token: a.token(EDIT), body: [{ title: 'Someone else', authorId: t.membership.addPerson(a.churchId) }] });
    const [theirs] = (await call(t.app, 'POST', '/content/posts', { token: b.token(EDIT), body: [{ title: 'Other church', authorId: person }] })).json();

    const exported = await signed('/content/internal/gdpr/export', { churchId: a.churchId, personId: person });
    expect(exported.statusCode).toBe(200);
    expect(exported.json().data.posts).toEqual([expect.objectContaining({ id: mine.id, title: 'By the person', authorId: person })]);
    expect((await call(t.app, 'POST', '/content/internal/gdpr/export', { token: a.token('all'), body: { churchId: a.churchId, personId: person } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/content/internal/gdpr/anonymize', { body: { churchId: a.churchId, personId: person } })).statusCode).toBe(401);

    const gone = await signed('/content/internal/gdpr/anonymize', { churchId: a.churchId, personId: person });
    expect(gone.json()).toEqual({ changed: { posts: 1 } });
    const [kept] = await t.app.db.select().from(posts).where(eq(posts.id, mine.id));
    expect(kept).toMatchObject({ title: 'By the person', authorId: null });
    expect((await t.app.db.select().from(posts).where(eq(posts.id, theirs.id)))[0]!.authorId).toBe(person);
    expect((await signed('/content/internal/gdpr/anonymize', { churchId: a.churchId, personId: person })).json()).toEqual({ changed: { posts: 0 } });
    expect((await signed('/content/internal/gdpr/export', { churchId: a.churchId, personId: person })).json()).toEqual({ data: { posts: [] } });
  });
});
