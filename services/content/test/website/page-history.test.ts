import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { pageHistory, sections } from '../../src/db/website';
import { removeOldHistory } from '../../src/jobs/website';
import { useContent } from '../setup';
import { church, ok } from './helpers';

const t = useContent();
const page = (token: string, url: string, texts: string[]) =>
  ok(t.app, 'POST', '/content/pages/importTree', { token, body: { url, title: 'T', sections: [{ background: 'bg', elements: texts.map((text) => ({ elementType: 'text', answers: { text } })) }] } });
const texts = (tree: { sections: Array<{ elements: Array<{ answers: { text: string } }> }> }) => tree.sections.flatMap((s) => s.elements.map((e) => e.answers.text));

describe('/content/pageHistory', () => {
  it('snapshots the current tree, lists it, and restores it (current content replaced in one go)', async () => {
    const c = church();
    const p = await page(c.editor, '/h', ['v1']);
    const entry = await ok(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: p.id, description: 'first' } });
    expect(entry).toMatchObject({ pageId: p.id, blockId: null, description: 'first', snapshot: { page: { url: '/h' }, sections: [{ elements: [{ elementType: 'text', answers: { text: 'v1' } }] }] } });
    await ok(t.app, 'POST', '/content/pages/temp/ai', { token: c.editor, body: { id: p.id, url: '/h', sections: [{ elements: [{ elementType: 'text', answers: { text: 'v2' } }] }, { elements: [] }] } });
    const restored = await ok(t.app, 'POST', `/content/pageHistory/restore/${entry.id}`, { token: c.editor });
    expect(texts(restored)).toEqual(['v1']);
    expect(await t.app.db.select().from(sections).where(eq(sections.pageId, p.id))).toHaveLength(1);
    const list = await ok(t.app, 'GET', `/content/pageHistory/page/${p.id}`, { token: c.editor });
    expect(list.map((e: { description: string }) => e.description)).toEqual(['Before restore', 'first']);
    expect(texts(list[0].snapshot)).toEqual(['v2']);
    expect(await ok(t.app, 'GET', `/content/pageHistory/${entry.id}`, { token: c.editor })).toMatchObject({ id: entry.id });
  });

  it('restores an inline snapshot for a page or a block, and refuses other churches', async () => {
    const c = church();
    const p = await page(c.editor, '/inline', ['old']);
    const tree = await ok(t.app, 'POST', '/content/pageHistory/restoreSnapshot', {
      token: c.editor,
      body: { pageId: p.id, snapshot: { sections: [{ background: 'x', elements: [{ elementType: 'text', answers: { text: 'inline' } }] }] } },
    });
    expect(texts(tree)).toEqual(['inline']);
    const [block] = await ok(t.app, 'POST', '/content/blocks', { token: c.editor, body: { name: 'F', blockType: 'footerBlock' } });
    const bt = await ok(t.app, 'POST', '/content/pageHistory/restoreSnapshot', { token: c.editor, body: { blockId: block.id, snapshot: { sections: [{ elements: [{ elementType: 'text', answers: { text: 'foot' } }] }] } } });
    expect(texts(bt)).toEqual(['foot']);
    expect((await ok(t.app, 'GET', `/content/pageHistory/block/${block.id}`, { token: c.editor }))).toHaveLength(1);
    const other = church();
    expect((await call(t.app, 'POST', '/content/pageHistory/restoreSnapshot', { token: other.editor, body: { pageId: p.id, snapshot: { sections: [] } } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/pageHistory', { token: other.editor, body: {} })).json().errors[0]).toMatchObject({ param: 'pageId' });
    expect((await call(t.app, 'GET', `/content/pageHistory/page/${p.id}`, { token: c.anyone })).statusCode).toBe(401);
    const big = await call(t.app, 'POST', '/content/pageHistory/restoreSnapshot', { token: c.editor, body: { pageId: p.id, snapshot: { sections: Array.from({ length: 31 }, () => ({})) } } });
    expect(big.statusCode).toBe(400);
    expect(texts(await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?url=/inline`))).toEqual(['inline']);
  });
});

describe('content.cleanPageHistory', () => {
  it('removes entries older than 30 days and keeps newer ones', async () => {
    const c = church();
    const p = await page(c.editor, '/old', ['a']);
    const recent = await ok(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: p.id } });
    const old = await ok(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: p.id } });
    await t.app.db.update(pageHistory).set({ createdAt: new Date(Date.now() - 31 * 86_400_000) }).where(eq(pageHistory.id, old.id));
    expect(await removeOldHistory({ db: t.app.db, config: t.config as never })).toBeGreaterThanOrEqual(1);
    const left = await t.app.db.select().from(pageHistory).where(eq(pageHistory.pageId, p.id));
    expect(left.map((e) => e.id)).toEqual([recent.id]);
  });
});
