import { and, asc, eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { blocks, elements, sections } from '../../../src/db/website';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();

async function newPage(token: string, url = '/p') {
  const [page] = await ok(t.app, 'POST', '/content/pages', { token, body: { url } });
  return page as { id: string };
}
const sectionSorts = async (pageId: string) =>
  (await t.app.db.select().from(sections).where(eq(sections.pageId, pageId)).orderBy(asc(sections.sort))).map((s) => [s.background, s.sort]);
const children = (parentId: string) => t.app.db.select().from(elements).where(eq(elements.parentId, parentId)).orderBy(asc(elements.sort));

describe('POST /content/sections', () => {
  it('keeps sort orders 1..n per zone on save (fractional sorts place between) and on delete', async () => {
    const c = church();
    const page = await newPage(c.editor);
    const saved = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: ['a', 'b', 'c'].map((background) => ({ pageId: page.id, background })) });
    expect(saved.map((s: { sort: number }) => s.sort)).toEqual([1, 2, 3]);
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id, background: 'between', sort: 1.5 } });
    expect(await sectionSorts(page.id)).toEqual([['a', 1], ['between', 2], ['b', 3], ['c', 4]]);
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { id: saved[2].id, sort: 0 } });
    expect(await sectionSorts(page.id)).toEqual([['c', 1], ['a', 2], ['between', 3], ['b', 4]]);
    await ok(t.app, 'DELETE', `/content/sections/${saved[0].id}`, { token: c.editor });
    expect(await sectionSorts(page.id)).toEqual([['c', 1], ['between', 2], ['b', 3]]);
    const [footer] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id, zone: 'footer', background: 'f' } });
    expect(footer.sort).toBe(1);
    expect(await ok(t.app, 'GET', `/content/sections/${footer.id}`, { token: c.anyone })).toEqual(footer);
  });

  it('checks references in the caller church with 400 naming the field', async () => {
    const a = church();
    const b = church();
    const page = await newPage(a.editor);
    const foreign = await call(t.app, 'POST', '/content/sections', { token: b.editor, body: [{ pageId: page.id }] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0]).toMatchObject({ param: '[0].pageId' });
    const none = await call(t.app, 'POST', '/content/sections', { token: a.editor, body: {} });
    expect(none.json().errors[0]).toMatchObject({ param: 'pageId' });
    const bad = await call(t.app, 'POST', '/content/sections', { token: a.editor, body: { pageId: 'nope' } });
    expect(bad.json().errors[0]).toMatchObject({ param: 'pageId', location: 'body' });
    expect((await call(t.app, 'POST', '/content/sections', { token: a.anyone, body: { pageId: page.id } })).statusCode).toBe(401);
  });
});

describe('POST /content/sections/duplicate/:id', () => {
  it('copies a section with its elements right after it, or converts it into a reusable block', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/importTree', {
      token: c.editor,
      body: { url: '/d', sections: [{ background: 'one', elements: [{ elementType: 'row', answers: { columns: '6,6' }, elements: [{ elementType: 'column', elements: [{ elementType: 'text' }] }] }] }, { background: 'two' }] },
    });
    const copy = await ok(t.app, 'POST', `/content/sections/duplicate/${page.sections[0].id}`, { token: c.editor });
    expect(copy).toMatchObject({ background: 'one', sort: 2, elements: [{ elementType: 'row', elements: [{ elementType: 'column', elements: [{ elementType: 'text' }] }] }] });
    expect(await sectionSorts(page.id)).toEqual([['one', 1], ['one', 2], ['two', 3]]);
    const block = await ok(t.app, 'POST', `/content/sections/duplicate/${page.sections[1].id}?convertToBlock=true`, { token: c.editor });
    expect(block).toMatchObject({ blockType: 'sectionBlock', sections: [{ background: 'two', blockId: block.id }] });
    expect(await sectionSorts(page.id)).toHaveLength(3);
  });
});

describe('POST /content/elements', () => {
  it('keeps element sorts 1..n among siblings and renumbers after delete', async () => {
    const c = church();
    const page = await newPage(c.editor);
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id } });
    const els = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: ['x', 'y', 'z'].map((text) => ({ sectionId: section.id, elementType: 'text', answers: { text } })) });
    expect(els.map((e: { sort: number }) => e.sort)).toEqual([1, 2, 3]);
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { sectionId: section.id, elementType: 'text', answers: { text: 'first' }, sort: 0.5 } });
    await ok(t.app, 'DELETE', `/content/elements/${els[1].id}`, { token: c.editor });
    const rows = await t.app.db.select().from(elements).where(eq(elements.sectionId, section.id)).orderBy(asc(elements.sort));
    expect(rows.map((r) => [r.answers.text, r.sort])).toEqual([['first', 1], ['x', 2], ['z', 3]]);
    expect(await ok(t.app, 'GET', `/content/elements/${els[0].id}`, { token: c.anyone })).toMatchObject({ id: els[0].id, sort: 2 });
  });

  it('keeps a row\'s columns in step with its column settings, keeping what is inside kept columns', async () => {
    const c = church();
    const page = await newPage(c.editor);
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id } });
    const [row] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { sectionId: section.id, elementType: 'row', answers: { columns: '4,4,4' } } });
    let cols = await children(row.id);
    expect(cols.map((x) => [x.elementType, x.answers.size, x.sort])).toEqual([['column', 4, 1], ['column', 4, 2], ['column', 4, 3]]);
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { sectionId: section.id, parentId: cols[0]!.id, elementType: 'text' } });
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { id: row.id, answers: { columns: [8, 4] } } });
    const kept = await children(row.id);
    expect(kept.map((x) => [x.answers.size, x.sort])).toEqual([[8, 1], [4, 2]]);
    expect(kept[0]!.id).toBe(cols[0]!.id);
    expect(await children(kept[0]!.id)).toHaveLength(1);
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { id: row.id, answers: { columns: '12' } } });
    cols = await children(row.id);
    expect(cols).toHaveLength(1);
    const bad = await call(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ id: row.id, answers: { columns: '7,x' } }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].answers.columns' });
  });

  it('keeps a carousel\'s slides in step with its slide count', async () => {
    const c = church();
    const page = await newPage(c.editor);
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id } });
    const [carousel] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { sectionId: section.id, elementType: 'carousel', answers: { slides: 3 } } });
    expect((await children(carousel.id)).map((s) => [s.elementType, s.answers.slide])).toEqual([['slide', 0], ['slide', 1], ['slide', 2]]);
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { id: carousel.id, answers: { slides: 2 } } });
    expect(await children(carousel.id)).toHaveLength(2);
  });

  it('refuses a parent from another section and a section of another church', async () => {
    const a = church();
    const b = church();
    const page = await newPage(a.editor);
    const [s1, s2] = await ok(t.app, 'POST', '/content/sections', { token: a.editor, body: [{ pageId: page.id }, { pageId: page.id }] });
    const [el] = await ok(t.app, 'POST', '/content/elements', { token: a.editor, body: { sectionId: s1.id, elementType: 'text' } });
    const wrong = await call(t.app, 'POST', '/content/elements', { token: a.editor, body: { sectionId: s2.id, parentId: el.id, elementType: 'text' } });
    expect(wrong.json().errors[0]).toMatchObject({ param: 'parentId' });
    const foreign = await call(t.app, 'POST', '/content/elements', { token: b.editor, body: { sectionId: s1.id, elementType: 'text' } });
    expect(foreign.json().errors[0]).toMatchObject({ param: 'sectionId' });
    expect((await call(t.app, 'DELETE', `/content/elements/${el.id}`, { token: b.editor })).statusCode).toBe(404);
  });
});

describe('POST /content/elements/duplicate/:id', () => {
  it('copies an element with its children right after it', async () => {
    const c = church();
    const page = await newPage(c.editor);
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id } });
    const [row, last] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ sectionId: section.id, elementType: 'row', answers: { columns: '6,6' } }, { sectionId: section.id, elementType: 'text' }] });
    const copy = await ok(t.app, 'POST', `/content/elements/duplicate/${row.id}`, { token: c.editor });
    expect(copy).toMatchObject({ elementType: 'row', sort: 2, elements: [{ elementType: 'column' }, { elementType: 'column' }] });
    expect(copy.id).not.toBe(row.id);
    const [after] = await t.app.db.select().from(elements).where(eq(elements.id, last.id));
    expect(after!.sort).toBe(3);
  });
});

describe('/content/blocks', () => {
  it('saves, lists, filters by type, serves trees and the public footer, and deletes with the tree', async () => {
    const c = church();
    expect(await ok(t.app, 'GET', `/content/blocks/public/footer/${c.churchId}`)).toEqual([]);
    const [footer, group] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: [{ name: 'Footer', blockType: 'footerBlock' }, { name: 'Group', blockType: 'elementBlock' }] });
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { blockId: footer.id, background: 'black' } });
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: { sectionId: section.id, elementType: 'text', answers: { text: '© us' } } });
    expect((await ok(t.app, 'GET', '/content/blocks', { token: c.anyone })).map((b: { name: string }) => b.name)).toEqual(['Footer', 'Group']);
    expect(await ok(t.app, 'GET', '/content/blocks/blockType/elementBlock', { token: c.anyone })).toEqual([group]);
    expect(await ok(t.app, 'GET', `/content/blocks/${footer.id}`, { token: c.anyone })).toEqual(footer);
    // B1App:src/app/[sdSlug]/(public)/[pageSlug]/components/DefaultPageWrapper.tsx renders the answer as the
    // footer zone's sections (Footer.tsx: footerSections.length, Zone zone="siteFooter").
    const pub = await ok(t.app, 'GET', `/content/blocks/public/footer/${c.churchId}`);
    expect(pub).toMatchObject([{ zone: 'siteFooter', background: 'black', answersJSON: null, elements: [{ elementType: 'text', answers: { text: '© us' }, answersJSON: '{"text":"© us"}', blockId: footer.id }] }]);
    const tree = await ok(t.app, 'GET', `/content/blocks/${c.churchId}/tree/${footer.id}`);
    expect(tree).toMatchObject({ id: footer.id, name: 'Footer', sections: [{ ...pub[0], zone: 'main' }] });
    expect((await call(t.app, 'GET', `/content/blocks/${church().churchId}/tree/${footer.id}`)).statusCode).toBe(404);
    await ok(t.app, 'DELETE', `/content/blocks/${footer.id}`, { token: c.editor });
    expect(await t.app.db.select().from(sections).where(eq(sections.blockId, footer.id))).toEqual([]);
    expect(await t.app.db.select().from(blocks).where(and(eq(blocks.churchId, c.churchId)))).toHaveLength(1);
  });

  it('renders a section that points at a block with the block sections in its place', async () => {
    const c = church();
    const [block] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: { name: 'Shared', blockType: 'sectionBlock' } });
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { blockId: block.id, background: 'shared' } });
    const page = await newPage(c.editor, '/uses-block');
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ pageId: page.id, background: 'own' }, { pageId: page.id, targetBlockId: block.id }] });
    const tree = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/uses-block`);
    expect(tree.sections.map((s: { background: string }) => s.background)).toEqual(['own', 'shared']);
  });
});
