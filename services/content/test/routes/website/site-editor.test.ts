import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { elements, sections } from '../../../src/db/website';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

// B1Admin's site editor (src/site/**) as it calls the API: what it sends, and what it reads back.
const t = useContent();

type Node = { id: string; answers: Record<string, unknown>; answersJSON: string | null; stylesJSON: string | null; elements: Node[]; sections?: Node[]; [k: string]: unknown };

async function newPage(token: string, url: string) {
  const [page] = await ok(t.app, 'POST', '/content/pages', { token, body: [{ id: '', title: url.slice(1), url }] });
  return page as { id: string; url: string };
}
/** The tree B1Admin's editor reads: by id, with its token (the draft and its ids are the church's editors' only). */
const editorTree = (c: { churchId: string; editor: string }, pageId: string) => ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${pageId}`, { token: c.editor });

describe('sections and elements as the site editor saves and reads them', () => {
  it('B1Admin:src/site/admin/elements/ElementEdit.tsx reads answersJSON from the tree and saves it back; the answer carries the text forms', async () => {
    const c = church();
    const page = await newPage(c.editor, '/welcome');
    // B1Admin:src/site/admin/SectionEdit.tsx saves a new section as ContentEditor.handleTemplateBlank builds it.
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ id: '', sort: 0.1, background: '#FFF', textColor: 'dark', pageId: page.id, zone: 'main' }] });
    expect(section).toMatchObject({ pageId: page.id, sort: 1, answers: {}, answersJSON: null, stylesJSON: null, animationsJSON: null });
    // B1Admin:src/site/admin/Section.tsx handleDrop: a new element with its defaults as answersJSON only.
    const [text] = await ok(t.app, 'POST', '/content/elements', {
      token: c.editor,
      body: [{ sectionId: section.id, elementType: 'text', sort: 1, blockId: null, answersJSON: JSON.stringify({ text: 'Hello', textAlignment: 'left' }) }],
    });
    expect(text).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      sectionId: section.id,
      blockId: null,
      parentId: null,
      elementType: 'text',
      sort: 1,
      answers: { text: 'Hello', textAlignment: 'left' },
      styles: {},
      animations: {},
      answersJSON: '{"text":"Hello","textAlignment":"left"}',
      stylesJSON: null,
      animationsJSON: null,
    });

    // The editor opens the page by id and parses each element's answersJSON into its form.
    const tree = await editorTree(c, page.id);
    const el = (tree.sections as Node[])[0]!.elements[0]!;
    expect(JSON.parse(el.answersJSON!)).toEqual({ text: 'Hello', textAlignment: 'left' });
    expect((tree.sections as Node[])[0]).toMatchObject({ id: section.id, answersJSON: null, stylesJSON: null });

    // ElementEdit.handleSave posts the element it edited: both forms, the text being what it changed.
    const edited = { ...el, answers: { text: 'Hello', textAlignment: 'left' }, answersJSON: JSON.stringify({ text: 'Welcome!', textAlignment: 'center' }) };
    const [saved] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [edited] });
    expect(saved).toMatchObject({ id: el.id, answers: { text: 'Welcome!', textAlignment: 'center' }, answersJSON: '{"text":"Welcome!","textAlignment":"center"}' });

    // B1Admin:src/site/admin/SpacingHandles.tsx posts {...element, stylesJSON}: the stale `styles` object loses.
    const [spaced] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ ...saved, styles: {}, stylesJSON: JSON.stringify({ padding: { top: 'md', right: '0', bottom: 'md', left: '0' } }) }] });
    expect(spaced.styles).toEqual({ padding: { top: 'md', right: '0', bottom: 'md', left: '0' } });
    const [row] = await t.app.db.select().from(elements).where(eq(elements.id, el.id));
    expect(row).toMatchObject({ answers: { text: 'Welcome!', textAlignment: 'center' }, styles: { padding: { top: 'md', right: '0', bottom: 'md', left: '0' } } });

    // Clearing styles in the editor sends the object empty and no text: the styles go.
    const [cleared] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ ...spaced, styles: {}, stylesJSON: undefined }] });
    expect(cleared).toMatchObject({ styles: {}, stylesJSON: null });

    // SectionEdit saves the section with its answers as text.
    const [sec] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ ...(tree.sections as Node[])[0], elements: undefined, answersJSON: '{"videoType":"youtube"}', stylesJSON: '{"all":{"minHeight":"200px"}}' }] });
    expect(sec).toMatchObject({ id: section.id, answers: { videoType: 'youtube' }, styles: { all: { minHeight: '200px' } }, answersJSON: '{"videoType":"youtube"}' });
    const [secRow] = await t.app.db.select().from(sections).where(eq(sections.id, section.id));
    expect(secRow!.answers).toEqual({ videoType: 'youtube' });
  });

  it('refuses JSON text that is not an object, naming the field', async () => {
    const c = church();
    const page = await newPage(c.editor, '/bad-json');
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { pageId: page.id } });
    const bad = await call(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ sectionId: section.id, elementType: 'text', answersJSON: '{"text":' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].answersJSON', location: 'body', msg: 'must be JSON text of an object' });
    const list = await call(t.app, 'POST', '/content/sections', { token: c.editor, body: { id: section.id, stylesJSON: '[1,2]' } });
    expect(list.json().errors[0]).toMatchObject({ param: 'stylesJSON' });
    expect(await t.app.db.select().from(elements).where(eq(elements.sectionId, section.id))).toEqual([]);
  });

  it('B1Admin:src/site/admin/ContentEditor.tsx moves sections and elements by posting them back whole from the tree', async () => {
    const c = church();
    const page = await newPage(c.editor, '/moves');
    const saved = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: ['a', 'b'].map((background) => ({ id: '', pageId: page.id, zone: 'main', background })) });
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ id: '', sectionId: saved[0].id, elementType: 'text', answersJSON: '{"text":"x"}' }] });
    const tree = await editorTree(c, page.id);
    const [a, b] = tree.sections as Node[];
    // handleSectionMove: {...section, sort: sort + 1.5}, elements and text forms included.
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ ...a, sort: (a!.sort as number) + 1.5 }] });
    expect(((await editorTree(c, page.id)).sections as Node[]).map((s) => s.background)).toEqual(['b', 'a']);
    // Section.tsx handleDrop moves the element into the other section with its sort.
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ ...a!.elements[0], sectionId: b!.id, sort: 1 }] });
    const after = (await editorTree(c, page.id)).sections as Node[];
    expect(after.map((s) => s.elements.map((e) => e.answers.text))).toEqual([['x'], []]);
  });
});

describe('blocks in the site editor', () => {
  it('B1Admin:src/site/admin/SectionBlock.tsx reads a section pointing at a block with the block sections under it (by id); the public tree by url puts them in its place', async () => {
    const c = church();
    const [block] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: [{ id: '', name: 'Shared', blockType: 'sectionBlock' }] });
    const [inner] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: { blockId: block.id, zone: 'block', background: 'shared', answersJSON: '{"id":"x"}' } });
    const page = await newPage(c.editor, '/uses-block');
    // ContentEditor.handleDrop of a block: a section pointing at it, saved from SectionEdit.
    const [own, pointer] = await ok(t.app, 'POST', '/content/sections', {
      token: c.editor,
      body: [{ pageId: page.id, background: 'own' }, { sort: 2, background: '#FFF', textColor: 'dark', pageId: page.id, targetBlockId: block.id, zone: 'main' }],
    });
    const editor = (await editorTree(c, page.id)).sections as Node[];
    expect(editor.map((s) => s.id)).toEqual([own.id, pointer.id]);
    expect(editor[1]).toMatchObject({ id: pointer.id, targetBlockId: block.id, sections: [{ id: inner.id, background: 'shared', answersJSON: '{"id":"x"}', blockId: block.id }] });
    const site = (await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/uses-block`)).sections as Node[];
    expect(site.map((s) => [s.background, s.zone, s.id, s.answersJSON])).toEqual([['own', 'main', undefined, null], ['shared', 'main', undefined, '{"id":"x"}']]);
    // The editor can still delete the pointing section from the page.
    await ok(t.app, 'DELETE', `/content/sections/${pointer.id}`, { token: c.editor });
    expect(((await editorTree(c, page.id)).sections as Node[]).map((s) => s.id)).toEqual([own.id]);
  });

  it('B1Admin:src/site/components/StylesManager.tsx creates the footer block, and BlockEditPage.tsx edits it by its tree', async () => {
    const c = church();
    expect(await ok(t.app, 'GET', '/content/blocks/blockType/footerBlock', { token: c.editor })).toEqual([]);
    const [footer] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: [{ name: 'Site Footer', blockType: 'footerBlock', siteId: undefined }] });
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ sort: 0.1, background: '#FFF', textColor: 'dark', blockId: footer.id, zone: 'block' }] });
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ sectionId: section.id, elementType: 'text', sort: 1, blockId: footer.id, answersJSON: '{"text":"© Grace"}' }] });
    const tree = await ok(t.app, 'GET', `/content/blocks/${c.churchId}/tree/${footer.id}`);
    expect(tree).toMatchObject({ id: footer.id, blockType: 'footerBlock', sections: [{ id: section.id, zone: 'block', elements: [{ answersJSON: '{"text":"© Grace"}', blockId: footer.id }] }] });
    expect((await ok(t.app, 'GET', `/content/blocks/public/footer/${c.churchId}`)).map((s: Node) => s.zone)).toEqual(['siteFooter']);
  });
});

describe('adding a website page, as B1Admin does it', () => {
  it('B1Admin:src/site/components/AddPageModal.tsx adds a page and its nav link; PagesPage lists them, PageEdit opens it, PageLinkEdit changes its settings', async () => {
    const c = church();
    // AddPageModal.handleSave (blank page, navigation mode): the page, then a link to its url.
    const [page] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ title: 'About Us', url: '/about-us' }] });
    expect(page).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      siteId: null,
      name: null,
      url: '/about-us',
      title: 'About Us',
      metaDescription: null,
      layout: null,
      visibility: 'everyone',
      groupIds: null,
      publishedAt: null,
    });
    const [link] = await ok(t.app, 'POST', '/content/links', { token: c.editor, body: [{ text: 'About', url: page.url }] });
    expect(link).toMatchObject({ category: 'website', text: 'About', url: '/about-us', sort: 1, siteId: null });

    // PagesPage.loadData: PageHelper.loadPageTree reads id, title and url of each page; the nav links.
    expect((await ok(t.app, 'GET', '/content/pages', { token: c.editor })).map((p: { id: string; title: string; url: string }) => [p.id, p.title, p.url])).toEqual([[page.id, 'About Us', '/about-us']]);
    expect((await ok(t.app, 'GET', '/content/links?category=website', { token: c.editor })).map((l: { id: string }) => l.id)).toEqual([link.id]);

    // PageEdit.loadData: the tree by id (no sections yet) and the styles.
    const tree = await editorTree(c, page.id);
    expect(tree).toMatchObject({ id: page.id, url: '/about-us', sections: [] });
    expect(await ok(t.app, 'GET', '/content/globalStyles', { token: c.editor })).toMatchObject({ id: null, palette: expect.any(String) });

    // A first section and element, then the public site shows the page by its url.
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ sort: 1, background: '#FFF', textColor: 'dark', pageId: page.id, zone: 'main' }] });
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ sectionId: section.id, elementType: 'text', sort: 1, answersJSON: '{"text":"We are a church."}' }] });
    const site = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/about-us`);
    expect(site.sections[0].elements[0]).toMatchObject({ elementType: 'text', answers: { text: 'We are a church.' }, stylesJSON: null });
    expect(site.sections[0].elements[0]).not.toHaveProperty('answersJSON');
    expect(site.sections[0]).toHaveProperty('answersJSON', null);

    // PageLinkEdit.onValid: the page posted back with its settings; groupIds as JSON text or null.
    const groupId = t.membership.group(c.churchId);
    const [gated] = await ok(t.app, 'POST', '/content/pages', {
      token: c.editor,
      body: [{ ...page, title: 'About', url: '/about-us', layout: 'headerFooter', visibility: 'groups', metaDescription: null, groupIds: JSON.stringify([groupId]) }],
    });
    expect(gated).toMatchObject({ id: page.id, title: 'About', layout: 'headerFooter', visibility: 'groups', groupIds: JSON.stringify([groupId]) });
    expect(JSON.parse((await ok(t.app, 'GET', `/content/pages/${page.id}`, { token: c.editor })).groupIds)).toEqual([groupId]);
    const [open] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ ...gated, visibility: 'everyone', groupIds: null }] });
    expect(open).toMatchObject({ visibility: 'everyone', groupIds: null });

    // A second page at a url already used is refused naming url.
    const taken = await call(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ title: 'Again', url: '/about-us' }] });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().errors[0]).toMatchObject({ param: '[0].url' });
  });

  it('saves new rows sent with id "" (pages, links, blocks, sections, elements, styles)', async () => {
    const c = church();
    const [page] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ id: '', title: 'New', url: '/new', siteId: '' }] });
    expect(page).toMatchObject({ id: expect.any(String), siteId: null, url: '/new' });
    // B1Admin:src/site/PagesPage.tsx handleDrop adds a link with id "" and the selected site ("" for the main one).
    const [link] = await ok(t.app, 'POST', '/content/links', {
      token: c.editor,
      body: [{ id: '', churchId: c.churchId, category: 'website', url: '/new-page', linkType: 'url', linkData: '', icon: '', text: 'New Link', sort: 0, parentId: undefined, siteId: '' }],
    });
    expect(link).toMatchObject({ id: expect.any(String), siteId: null, text: 'New Link', sort: 1 });
    const [block] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: [{ id: '', name: 'Shared', blockType: 'elementBlock', siteId: '' }] });
    expect(block).toMatchObject({ id: expect.any(String), siteId: null });
    const [section] = await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ id: '', pageId: page.id, blockId: '', targetBlockId: '' }] });
    const [element] = await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ id: '', sectionId: section.id, parentId: '', blockId: '', elementType: 'text', answersJSON: '' }] });
    expect(element).toMatchObject({ id: expect.any(String), parentId: null, blockId: null, answers: {}, answersJSON: null });
    const [styles] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: [{ id: '', palette: '{"accent":"#123456"}' }] });
    expect(styles).toMatchObject({ id: expect.any(String), siteId: null, palette: '{"accent":"#123456"}' });
  });
});

describe("a church's additional sites", () => {
  it('B1Admin:src/helpers/PageHelper.ts lists the pages of the chosen site (?siteId=); each site has its own urls, and B1App reads a site by url and siteId', async () => {
    const c = church();
    const siteId = crypto.randomUUID();
    const [main] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ title: 'About', url: '/about' }] });
    // AddPageModal with a site selected: the same url on another site is that site's own page.
    const [other] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ title: 'About the campus', url: '/about', siteId }] });
    expect(other).toMatchObject({ siteId, url: '/about' });
    expect((await ok(t.app, 'GET', '/content/pages', { token: c.editor })).map((p: { id: string }) => p.id)).toEqual([main.id]);
    expect((await ok(t.app, 'GET', `/content/pages?siteId=${siteId}`, { token: c.editor })).map((p: { id: string }) => p.id)).toEqual([other.id]);
    const clash = await call(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ title: 'x', url: '/about', siteId }] });
    expect(clash.json().errors[0]).toMatchObject({ param: '[0].url' });
    // Renaming keeps the page on its site (and checks the url there).
    const [renamed] = await ok(t.app, 'POST', '/content/pages', { token: c.editor, body: [{ id: other.id, title: 'Campus', url: '/about' }] });
    expect(renamed).toMatchObject({ siteId, title: 'Campus' });

    // B1App:src/app/[sdSlug]/(public)/[pageSlug]/page.tsx reads /pages/:churchId/tree?url=&siteId=.
    expect((await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/about`)).title).toBe('About');
    expect((await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/about&siteId=${siteId}`)).title).toBe('Campus');
    expect((await ok(t.app, 'GET', `/content/pages/public/${c.churchId}?siteId=${siteId}`)).map((p: { title: string }) => p.title)).toEqual(['Campus']);
    // A copy stays on its site.
    const copy = await ok(t.app, 'POST', `/content/pages/duplicate/${other.id}`, { token: c.editor });
    expect(copy).toMatchObject({ siteId, url: '/about-copy' });
  });

  it('B1Admin:src/site/BlocksPage.tsx lists the shared and the site blocks; B1App reads the site footer, else the main one', async () => {
    const c = church();
    const siteId = crypto.randomUUID();
    const [shared, mainFooter] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: [{ name: 'A shared', blockType: 'elementBlock' }, { name: 'B main footer', blockType: 'footerBlock' }] });
    const [own] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: [{ name: 'C campus footer', blockType: 'footerBlock', siteId }] });
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ blockId: mainFooter.id, background: 'main' }, { blockId: own.id, background: 'campus' }] });
    expect((await ok(t.app, 'GET', '/content/blocks', { token: c.editor })).map((b: { id: string }) => b.id)).toEqual([shared.id, mainFooter.id]);
    expect((await ok(t.app, 'GET', `/content/blocks?siteId=${siteId}`, { token: c.editor })).map((b: { id: string }) => b.id)).toEqual([shared.id, mainFooter.id, own.id]);
    // StylesManager.getFooter picks the block of the site among the footer blocks it is given.
    expect((await ok(t.app, 'GET', `/content/blocks/blockType/footerBlock?siteId=${siteId}`, { token: c.editor })).map((b: { siteId: string | null }) => b.siteId)).toEqual([null, siteId]);
    expect((await ok(t.app, 'GET', `/content/blocks/public/footer/${c.churchId}?siteId=${siteId}`)).map((s: Node) => s.background)).toEqual(['campus']);
    expect((await ok(t.app, 'GET', `/content/blocks/public/footer/${c.churchId}?siteId=${crypto.randomUUID()}`)).map((s: Node) => s.background)).toEqual(['main']);
    expect((await ok(t.app, 'GET', `/content/blocks/public/footer/${c.churchId}`)).map((s: Node) => s.background)).toEqual(['main']);
  });

  it('B1Admin:src/site/PagesPage.tsx keeps each site its own navigation links, numbered apart', async () => {
    const c = church();
    const siteId = crypto.randomUUID();
    await ok(t.app, 'POST', '/content/links', { token: c.editor, body: [{ text: 'Home', url: '/' }, { text: 'About', url: '/about' }] });
    const [campus] = await ok(t.app, 'POST', '/content/links', { token: c.editor, body: [{ text: 'Campus home', url: '/', siteId }] });
    expect(campus.sort).toBe(1);
    expect((await ok(t.app, 'GET', '/content/links?category=website', { token: c.editor })).map((l: { text: string; sort: number }) => `${l.text}:${l.sort}`)).toEqual(['Home:1', 'About:2']);
    expect((await ok(t.app, 'GET', `/content/links?category=website&siteId=${siteId}`, { token: c.editor })).map((l: { text: string }) => l.text)).toEqual(['Campus home']);
    // B1App:src/helpers/ConfigHelper.ts reads the site's nav by /links/church/:churchId?category=&siteId=.
    expect((await ok(t.app, 'GET', `/content/links/church/${c.churchId}?category=website&siteId=${siteId}`)).map((l: { text: string }) => l.text)).toEqual(['Campus home']);
    await ok(t.app, 'DELETE', `/content/links/${campus.id}`, { token: c.editor });
    expect((await ok(t.app, 'GET', '/content/links?category=website', { token: c.editor })).map((l: { sort: number }) => l.sort)).toEqual([1, 2]);
  });

  it('B1Admin:src/site/components/StylesManager.tsx saves the main styles, then forks them for a site; CssEdit and NavStyleEdit save customJS and navStyles', async () => {
    const c = church();
    const siteId = crypto.randomUUID();
    // No styles yet: defaults without an id; the first save creates the main site's row.
    const defaults = await ok(t.app, 'GET', '/content/globalStyles', { token: c.editor });
    expect(defaults).toMatchObject({ id: null, siteId: null, navStyles: null, customJS: null });
    const [main] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: [{ ...defaults, palette: '{"accent":"#111111"}' }] });
    expect(main).toMatchObject({ id: expect.any(String), siteId: null, palette: '{"accent":"#111111"}' });
    // A site without its own styles reads the main row (its id and site): prepareForSave drops the id and sets the site.
    const inherited = await ok(t.app, 'GET', `/content/globalStyles?siteId=${siteId}`, { token: c.editor });
    expect(inherited).toMatchObject({ id: main.id, siteId: null });
    const { id: _id, ...forked } = inherited;
    const [own] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: [{ ...forked, siteId, palette: '{"accent":"#222222"}' }] });
    expect(own).toMatchObject({ siteId, palette: '{"accent":"#222222"}' });
    expect(own.id).not.toBe(main.id);
    expect((await ok(t.app, 'GET', `/content/globalStyles?siteId=${siteId}`, { token: c.editor })).id).toBe(own.id);
    expect((await ok(t.app, 'GET', `/content/globalStyles/church/${c.churchId}?siteId=${siteId}`)).palette).toBe('{"accent":"#222222"}');
    expect((await ok(t.app, 'GET', '/content/globalStyles', { token: c.editor })).palette).toBe('{"accent":"#111111"}');

    // CssEdit changes customJS (the loaded customJs beside it is stale); NavStyleEdit sets navStyles.
    const [css] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: [{ ...main, customCss: 'h1{color:red}', customJS: '<script>hi()</script>', customJs: null }] });
    expect(css).toMatchObject({ id: main.id, customCss: 'h1{color:red}', customJS: '<script>hi()</script>', customJs: '<script>hi()</script>' });
    const [nav] = await ok(t.app, 'POST', '/content/globalStyles', { token: c.editor, body: [{ ...css, navStyles: '{"linkColor":"#fff"}' }] });
    expect(nav).toMatchObject({ navStyles: '{"linkColor":"#fff"}', customJS: '<script>hi()</script>' });
    expect(await ok(t.app, 'GET', `/content/globalStyles/church/${c.churchId}`)).toMatchObject({ navStyles: '{"linkColor":"#fff"}', customJS: '<script>hi()</script>' });
  });
});

describe('errors the apps show', () => {
  it('Helpers:src/ApiHelper.ts shows errors[0]: a readable sentence for every status but a 400 validation', async () => {
    const c = church();
    const missing = await call(t.app, 'GET', `/content/pages/${crypto.randomUUID()}`, { token: c.editor });
    expect(missing.statusCode).toBe(404);
    expect(typeof missing.json().errors[0]).toBe('string');
    expect(missing.json().errors[0]).toMatch(/page/i);
    const denied = await call(t.app, 'POST', '/content/pages', { token: c.anyone, body: [{ title: 'x', url: '/x' }] });
    expect(denied.statusCode).toBe(401);
    expect(typeof denied.json().errors[0]).toBe('string');
    expect(denied.json().errors[0].length).toBeGreaterThan(5);
    const gone = await call(t.app, 'DELETE', `/content/sections/${crypto.randomUUID()}`, { token: c.editor });
    expect(gone.statusCode).toBe(404);
    expect(typeof gone.json().errors[0]).toBe('string');
    // A 400 validation keeps the spec's {msg, param, location}.
    const invalid = await call(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ elementType: 'text' }] });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().errors[0]).toMatchObject({ param: '[0].sectionId', msg: expect.any(String) });
  });
});
