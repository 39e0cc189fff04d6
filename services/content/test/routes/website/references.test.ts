import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

// Issue 41, what the reference walk cannot reach alone (a field behind another that must be valid, a reference
// inside JSON text or a nested tree) and the draft rule for sections and elements read by id.
const t = useContent();
const sunday = { start: '2026-01-04T16:00:00.000Z', end: '2026-01-04T17:30:00.000Z' };
const refused = (field: string) => [{ msg: `${field.replace(/^.*\./, '').replace(/^\[\d+\]/, '')} is not a record of this church`, param: field, location: 'body' }];
const theirRecord = () => {
  const id = randomUUID();
  t.membership.theirs.add(id);
  return id;
};

describe("another church's ids in bodies", () => {
  it("an event's form, and a registration type's, are the church's forms", async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const form = theirRecord();
    const res = await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId, title: 'Camp', ...sunday, formId: form }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(refused('[0].formId'));
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId, title: 'Camp', ...sunday, formId: randomUUID() }] });
    expect((await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: ev.id, formId: form }] })).json().errors).toEqual(refused('[0].formId'));
    const type = await call(t.app, 'POST', '/content/registrations/types', { token: c.editor, body: [{ eventId: ev.id, name: 'Adult', formId: form }] });
    expect(type.json().errors).toEqual(refused('[0].formId'));
    expect(await ok(t.app, 'GET', `/content/registrations/types/event/${ev.id}?churchId=${c.churchId}`)).toEqual([]);
  });

  it("rooms' and resources' approval groups are groups of the church", async () => {
    const c = church();
    const other = church();
    const theirs = t.membership.group(other.churchId);
    for (const path of ['/content/rooms', '/content/resources']) {
      const res = await call(t.app, 'POST', path, { token: c.editor, body: [{ name: 'Hall', approvalGroupId: theirs }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(refused('[0].approvalGroupId'));
      expect(await ok(t.app, 'GET', path, { token: c.editor })).toEqual([]);
      const [mine] = await ok(t.app, 'POST', path, { token: c.editor, body: [{ name: 'Hall', approvalGroupId: t.membership.group(c.churchId) }] });
      expect((await call(t.app, 'POST', path, { token: c.editor, body: { id: mine.id, approvalGroupId: theirs } })).json().errors).toEqual(refused('approvalGroupId'));
    }
  });

  it("an event template's rooms (comma-separated text) and resources (JSON text) are the church's", async () => {
    const c = church();
    const other = church();
    const [theirRoom] = await ok(t.app, 'POST', '/content/rooms', { token: other.editor, body: [{ name: 'Theirs' }] });
    const [theirKit] = await ok(t.app, 'POST', '/content/resources', { token: other.editor, body: [{ name: 'Theirs' }] });
    const [room] = await ok(t.app, 'POST', '/content/rooms', { token: c.editor, body: [{ name: 'Ours' }] });
    const rooms = await call(t.app, 'POST', '/content/eventTemplates', { token: c.editor, body: [{ name: 'Service', roomIds: `${room.id},${theirRoom.id}` }] });
    expect(rooms.json().errors).toEqual(refused('[0].roomIds'));
    const kit = await call(t.app, 'POST', '/content/eventTemplates', { token: c.editor, body: [{ name: 'Service', resourcesJson: JSON.stringify([{ resourceId: theirKit.id, quantity: 1 }]) }] });
    expect(kit.json().errors).toEqual(refused('[0].resourcesJson'));
    expect(await ok(t.app, 'GET', '/content/eventTemplates', { token: c.editor })).toEqual([]);
    await ok(t.app, 'POST', '/content/eventTemplates', { token: c.editor, body: [{ name: 'Service', roomIds: room.id }] });
  });

  it("a post's author is a person of the church", async () => {
    const c = church();
    const author = theirRecord();
    const res = await call(t.app, 'POST', '/content/posts', { token: c.editor, body: [{ title: 'Hello', authorId: author }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(refused('[0].authorId'));
    expect(await ok(t.app, 'GET', '/content/posts', { token: c.editor })).toEqual([]);
  });

  it("a tree (import, AI page, a section's tree, a snapshot) points only at the church's blocks, and gates by its groups", async () => {
    const c = church();
    const other = church();
    const [theirBlock] = await ok(t.app, 'POST', '/content/blocks', { token: other.editor, body: [{ name: 'Theirs', blockType: 'sectionBlock' }] });
    const sections = [{ zone: 'main', elements: [] }, { zone: 'main', targetBlockId: theirBlock.id }];
    for (const path of ['/content/pages/importTree', '/content/pages/temp/ai']) {
      const res = await call(t.app, 'POST', path, { token: c.editor, body: { url: '/x', sections } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(refused('sections[1].targetBlockId'));
      const gated = await call(t.app, 'POST', path, { token: c.editor, body: { url: '/x', visibility: 'groups', groupIds: [t.membership.group(other.churchId)] } });
      expect(gated.json().errors).toEqual(refused('groupIds'));
    }
    expect(await ok(t.app, 'GET', '/content/pages', { token: c.editor })).toEqual([]);
    const page = await ok(t.app, 'POST', '/content/pages/importTree', { token: c.editor, body: { url: '/x', sections: [{ zone: 'main' }] } });
    const tree = await call(t.app, 'POST', '/content/sections/tree', { token: c.editor, body: { section: { pageId: page.id, zone: 'main', targetBlockId: theirBlock.id } } });
    expect(tree.json().errors).toEqual(refused('section.targetBlockId'));
    const snapshot = { sections };
    const restored = await call(t.app, 'POST', '/content/pageHistory/restoreSnapshot', { token: c.editor, body: { pageId: page.id, snapshot } });
    expect(restored.json().errors).toEqual(refused('snapshot.sections[1].targetBlockId'));
    const kept = await call(t.app, 'POST', '/content/pageHistory', { token: c.editor, body: { pageId: page.id, snapshotJSON: JSON.stringify(snapshot) } });
    expect(kept.json().errors).toEqual(refused('snapshotJSON.sections[1].targetBlockId'));
    expect(await ok(t.app, 'GET', `/content/pageHistory/page/${page.id}`, { token: c.editor })).toEqual([]);
    const { sections: now } = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${page.id}`, { token: c.editor });
    expect(now.map((s: { targetBlockId: string | null }) => s.targetBlockId)).toEqual([null]);
  });
});

describe('sections and elements by id: the working draft is for website editors', () => {
  it('serves a published page’s sections and elements to editors only; a page never published serves them to its readers', async () => {
    const c = church();
    const page = await ok(t.app, 'POST', '/content/pages/importTree', {
      token: c.editor,
      body: { url: '/about', sections: [{ zone: 'main', elements: [{ elementType: 'text', answers: { text: 'Published words' } }] }] },
    });
    const { sections } = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${page.id}`, { token: c.editor });
    const sectionId = sections[0].id as string;
    const elementId = sections[0].elements[0].id as string;
    const reader = c.anyone;
    // never published: the working tree is what the site serves, so its rows are readable
    expect((await ok(t.app, 'GET', `/content/sections/${sectionId}`, { token: reader })).id).toBe(sectionId);
    expect((await ok(t.app, 'GET', `/content/elements/${elementId}`, { token: reader })).id).toBe(elementId);
    await ok(t.app, 'POST', `/content/pages/${page.id}/publish`, { token: c.editor });
    // the editor now drafts new words: the rows are the draft, not what the site serves
    await ok(t.app, 'POST', '/content/elements', { token: c.editor, body: [{ id: elementId, answers: { text: 'Draft words' } }] });
    expect((await call(t.app, 'GET', `/content/sections/${sectionId}`, { token: reader })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/elements/${elementId}`, { token: reader })).statusCode).toBe(404);
    expect((await ok(t.app, 'GET', `/content/elements/${elementId}`, { token: c.editor })).answers).toEqual({ text: 'Draft words' });
    expect((await ok(t.app, 'GET', `/content/sections/${sectionId}`, { token: c.editor })).id).toBe(sectionId);
    // what the public reads is the published page
    const published = await ok(t.app, 'GET', `/content/pages/${c.churchId}/tree?id=${page.id}`, { token: reader });
    expect(JSON.stringify(published)).toContain('Published words');
    expect(JSON.stringify(published)).not.toContain('Draft words');
    // unpublished again, the working tree is live once more
    await ok(t.app, 'DELETE', `/content/pages/${page.id}/published`, { token: c.editor });
    expect((await ok(t.app, 'GET', `/content/elements/${elementId}`, { token: reader })).answers).toEqual({ text: 'Draft words' });
  });
});
