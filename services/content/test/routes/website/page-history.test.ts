import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { pageHistory, sections } from '../../../src/db/website';
import { removeOldHistory } from '../../../src/jobs/website';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

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

describe('the site editor history (B1Admin:src/site/hooks/useUndoRedo.ts)', () => {
  it('stores the editor snapshot sent as snapshotJSON, lists it back with snapshotJSON and createdDate, and restores it with success', async () => {
    const c = church();
    const p = await page(c.editor, '/undo', ['before']);
    const tree = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${p.id}`, { token: c.editor });
    // createSnapshot: the editor's own sections as it shows them (ids, both answer forms).
    const snapshot = { sections: tree.sections.map((s: { elements: object[] }) => ({ ...s, elements: s.elements.map((e) => ({ ...e, elements: [] })) })) };
    const saved = await ok(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: p.id, blockId: undefined, snapshotJSON: JSON.stringify(snapshot), description: 'Before editing element' } });
    expect(saved).toMatchObject({ id: expect.any(String), pageId: p.id, description: 'Before editing element', createdDate: expect.any(String) });
    expect(JSON.parse(saved.snapshotJSON)).toEqual(snapshot);

    // The page changes; loadHistory reads the list (newest first) and parses each snapshotJSON.
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ ...tree.sections[0].elements[0], answersJSON: '{"text":"after"}' }] });
    const list = await ok(t.app, 'GET', `/content/pageHistory/page/${p.id}`, { token: c.editor });
    expect(list.map((h: { id: string }) => h.id)).toEqual([saved.id]);
    expect(JSON.parse(list[0].snapshotJSON).sections[0].elements[0].answersJSON).toBe('{"text":"before"}');
    expect(new Date(list[0].createdDate).getTime()).not.toBeNaN();

    // Undo: restore by id answers success with the snapshot, and the page is back.
    const undone = await ok(t.app, 'POST', `/content/pageHistory/restore/${saved.id}`, { token: c.editor });
    expect(undone).toMatchObject({ success: true, snapshot });
    expect(texts(await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${p.id}`, { token: c.editor }))).toEqual(['before']);
    // Redo without an id: the inline snapshot, its text forms winning over stale objects.
    const redo = { sections: [{ ...snapshot.sections[0], elements: [{ ...snapshot.sections[0].elements[0], answers: { text: 'stale' }, answersJSON: '{"text":"redone"}' }] }] };
    const redone = await ok(t.app, 'POST', '/content/pageHistory/restoreSnapshot', { token: c.editor, body: { pageId: p.id, snapshot: redo } });
    expect(redone.success).toBe(true);
    expect(texts(await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${p.id}`, { token: c.editor }))).toEqual(['redone']);
  });

  it('refuses snapshot text that is not JSON or not a tree, naming snapshotJSON', async () => {
    const c = church();
    const p = await page(c.editor, '/bad-undo', ['x']);
    const notJson = await call(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: p.id, snapshotJSON: '{"sections":' } });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().errors[0]).toMatchObject({ param: 'snapshotJSON' });
    const noType = await call(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: p.id, snapshotJSON: JSON.stringify({ sections: [{ elements: [{ answers: {} }] }] }) } });
    expect(noType.json().errors[0]).toMatchObject({ param: 'snapshotJSON.sections[0].elements[0].elementType' });
    expect(await t.app.db.select().from(pageHistory).where(eq(pageHistory.pageId, p.id))).toEqual([]);
  });
});
