import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];
const texts = (tree: { sections: Array<{ elements: Array<{ answers?: { text?: string }; answersJSON?: string }> }> }) =>
  tree.sections.flatMap((s) => s.elements.map((e) => e.answers?.text ?? JSON.parse(e.answersJSON ?? '{}').text));

async function pageWithText(c: ReturnType<typeof makeChurch>, text: string) {
  const token = c.token(EDIT);
  const [page] = (await call(t.app, 'POST', '/content/pages', { token, body: [{ url: '/welcome', title: 'Welcome' }] })).json();
  const [section] = (await call(t.app, 'POST', '/content/sections', { token, body: [{ pageId: page.id }] })).json();
  const [element] = (await call(t.app, 'POST', '/content/elements', { token, body: [{ sectionId: section.id, elementType: 'text', answers: { text } }] })).json();
  return { page, section, element };
}

describe('page drafts (B1Admin ContentEditor.tsx: publish, discard, unpublish)', () => {
  it('the public site serves the published version; the editor works on the tree; discard restores the published one', async () => {
    const a = makeChurch();
    const token = a.token(EDIT);
    const { page, element } = await pageWithText(a, 'Version one');
    const publicTree = async () => (await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?url=/welcome`)).json();
    // never published: the working tree is live (pages made before drafts keep working)
    expect(texts(await publicTree())).toEqual(['Version one']);

    const published = await call(t.app, 'POST', `/content/pages/${page.id}/publish`, { token, body: {} });
    expect(published.statusCode).toBe(200);
    expect(Date.parse(published.json().publishedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await call(t.app, 'GET', `/content/pages/${page.id}`, { token })).json().publishedAt).toBe(published.json().publishedAt);

    // an edit is a draft: the editor sees it, the public site does not
    await call(t.app, 'POST', '/content/elements', { token, body: [{ id: element.id, sectionId: element.sectionId, elementType: 'text', answers: { text: 'Draft two' } }] });
    expect(texts((await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?id=${page.id}`, { token })).json())).toEqual(['Draft two']);
    const live = await publicTree();
    expect(texts(live)).toEqual(['Version one']);
    expect(JSON.stringify(live)).not.toContain('"id"');

    // discard: back to the published version in the editor too
    expect((await call(t.app, 'POST', `/content/pages/${page.id}/discard`, { token, body: {} })).json()).toEqual({ success: true });
    expect(texts((await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?id=${page.id}`, { token })).json())).toEqual(['Version one']);

    // publishing again serves the new version
    const [section2] = (await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?id=${page.id}`, { token })).json().sections;
    await call(t.app, 'POST', '/content/elements', { token, body: [{ sectionId: section2.id, elementType: 'text', answers: { text: 'Version three' } }] });
    await call(t.app, 'POST', `/content/pages/${page.id}/publish`, { token, body: {} });
    expect(texts(await publicTree())).toEqual(['Version one', 'Version three']);

    // unpublish: the working tree is live again; discard then has nothing to go back to
    expect((await call(t.app, 'DELETE', `/content/pages/${page.id}/published`, { token })).json()).toEqual({});
    expect((await call(t.app, 'GET', `/content/pages/${page.id}`, { token })).json().publishedAt).toBeNull();
    const nothing = await call(t.app, 'POST', `/content/pages/${page.id}/discard`, { token, body: {} });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().errors[0].param).toBe('id');
  });

  it('needs Content.Edit (401) and the church’s own page (404, nothing written)', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const { page } = await pageWithText(a, 'Mine');
    expect((await call(t.app, 'POST', `/content/pages/${page.id}/publish`, { token: a.token(), body: {} })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/pages/${page.id}/publish`, { token: b.token(EDIT), body: {} })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/pages/${page.id}/published`, { token: b.token(EDIT) })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/content/pages/${page.id}/discard`, { token: b.token(EDIT), body: {} })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/content/pages/${randomUUID()}/publish`, { token: a.token(EDIT), body: {} })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/pages/${page.id}`, { token: a.token(EDIT) })).json().publishedAt).toBeNull();
  });

  it('the public tree by id serves the published version too; the draft only to the church’s editors', async () => {
    const a = makeChurch();
    const b = makeChurch();
    const token = a.token(EDIT);
    const { page, element } = await pageWithText(a, 'Published text');
    await call(t.app, 'POST', `/content/pages/${page.id}/publish`, { token, body: {} });
    await call(t.app, 'POST', '/content/elements', { token, body: [{ id: element.id, sectionId: element.sectionId, elementType: 'text', answers: { text: 'Secret draft' } }] });
    const byId = (auth?: string) => call(t.app, 'GET', `/content/pages/${a.churchId}/tree?id=${page.id}`, { token: auth });
    for (const who of [undefined, a.token(), b.token(EDIT)]) {
      const res = await byId(who);
      expect(res.statusCode).toBe(200);
      expect(texts(res.json())).toEqual(['Published text']);
      expect(res.body).not.toContain('Secret draft');
      expect(res.json().sections[0].id).toBeUndefined();
    }
    // the editor reads the draft with its ids, and that answer is kept apart from the public one
    const draft = (await byId(token)).json();
    expect(texts(draft)).toEqual(['Secret draft']);
    expect(draft.sections[0].elements[0].id).toBe(element.id);
    expect(texts((await byId()).json())).toEqual(['Published text']);
  });

  it('a page no one made is an empty page by url (B1App falls back to its sermons, stream and donate pages)', async () => {
    const a = makeChurch();
    for (const url of ['sermons', 'stream', 'donate', '/nope']) {
      const res = await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?url=${url}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({});
    }
    // a page the church made under that url is served as usual
    await pageWithText(a, 'Our sermons');
    await call(t.app, 'POST', '/content/pages', { token: a.token(EDIT), body: [{ url: '/sermons', title: 'Sermons' }] });
    expect((await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?url=sermons`)).json()).toMatchObject({ url: '/sermons', title: 'Sermons' });
    // by id (the editor's form) an unknown page stays a 404
    expect((await call(t.app, 'GET', `/content/pages/${a.churchId}/tree?id=${randomUUID()}`)).statusCode).toBe(404);
  });
});
