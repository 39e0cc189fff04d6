import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { elements, sections } from '../../src/db/website';
import { useContent } from '../setup';
import { church, ok } from './helpers';

// B1Admin's site editor (src/site/**) as it calls the API: what it sends, and what it reads back.
const t = useContent();

type Node = { id: string; answers: Record<string, unknown>; answersJSON: string | null; stylesJSON: string | null; elements: Node[]; sections?: Node[]; [k: string]: unknown };

async function newPage(token: string, url: string) {
  const [page] = await ok(t.app, 'POST', '/content/pages', { token, body: [{ id: '', title: url.slice(1), url }] });
  return page as { id: string; url: string };
}
const editorTree = (churchId: string, pageId: string) => ok(t.app, 'GET', `/content/pages/${churchId}/tree?id=${pageId}`);

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
    const tree = await editorTree(c.churchId, page.id);
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
    const tree = await editorTree(c.churchId, page.id);
    const [a, b] = tree.sections as Node[];
    // handleSectionMove: {...section, sort: sort + 1.5}, elements and text forms included.
    await ok(t.app, 'POST', '/content/sections', { token: c.editor, body: [{ ...a, sort: (a!.sort as number) + 1.5 }] });
    expect(((await editorTree(c.churchId, page.id)).sections as Node[]).map((s) => s.background)).toEqual(['b', 'a']);
    // Section.tsx handleDrop moves the element into the other section with its sort.
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ ...a!.elements[0], sectionId: b!.id, sort: 1 }] });
    const after = (await editorTree(c.churchId, page.id)).sections as Node[];
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
    const editor = (await editorTree(c.churchId, page.id)).sections as Node[];
    expect(editor.map((s) => s.id)).toEqual([own.id, pointer.id]);
    expect(editor[1]).toMatchObject({ id: pointer.id, targetBlockId: block.id, sections: [{ id: inner.id, background: 'shared', answersJSON: '{"id":"x"}', blockId: block.id }] });
    const site = (await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/uses-block`)).sections as Node[];
    expect(site.map((s) => [s.background, s.zone, s.id, s.answersJSON])).toEqual([['own', 'main', undefined, null], ['shared', 'main', undefined, '{"id":"x"}']]);
    // The editor can still delete the pointing section from the page.
    await ok(t.app, 'DELETE', `/content/sections/${pointer.id}`, { token: c.editor });
    expect(((await editorTree(c.churchId, page.id)).sections as Node[]).map((s) => s.id)).toEqual([own.id]);
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
