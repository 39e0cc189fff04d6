import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '@church/common';
import { call } from '@church/common/testing';
import { blockedIps, conversations, messages, notifications } from '../../src/db/schema';
import { postMessages } from '../../src/repos/messages';
import { makeChurch, useMessaging } from '../setup';

const t = useMessaging();

describe('conversations and messages', () => {
  it('starts a conversation with a comment, pages its messages and lists by ids with first and last posts', async () => {
    const church = makeChurch();
    const token = church.token([], { leaderGroupIds: [] });
    const contentId = randomUUID();
    const start = await call(t.app, 'POST', '/messaging/conversations/start', { token, body: { contentType: 'sermon', contentId, title: 'Sunday', comment: 'First!' } });
    expect(start.statusCode).toBe(200);
    const conv = start.json();
    expect(conv).toMatchObject({ contentType: 'sermon', contentId, title: 'Sunday', postCount: 1 });
    for (const n of [2, 3, 4]) {
      const r = await call(t.app, 'POST', '/messaging/messages', { token, body: { conversationId: conv.id, content: `m${n}` } });
      expect(r.statusCode).toBe(200);
      expect(r.json()[0]).toMatchObject({ personId: church.personId, content: `m${n}`, messageType: 'comment' });
    }
    const page = await call(t.app, 'GET', `/messaging/conversations/messages/sermon/${contentId}?page=2&limit=3`, { token });
    expect(page.statusCode).toBe(200);
    expect(page.json()[0].messages.map((m: { content: string }) => m.content)).toEqual(['First!']);
    const timeline = await call(t.app, 'GET', `/messaging/conversations/timeline/ids?ids=${conv.id},${randomUUID()}`, { token });
    expect(timeline.json()).toHaveLength(1);
    expect(timeline.json()[0].firstPost.content).toBe('First!');
    expect(timeline.json()[0].lastPost.content).toBe('m4');
    // public reads
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv.id}`)).json().id).toBe(conv.id);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/sermon/${contentId}`)).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${conv.id}`)).json()).toHaveLength(4);
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${conv.id}`, { token })).json()).toHaveLength(4);
    // another church sees nothing
    const other = makeChurch();
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${conv.id}`, { token: other.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/messaging/conversations/timeline/ids?ids=${conv.id}`, { token: other.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/messaging/conversations/${other.churchId}/${conv.id}`)).statusCode).toBe(404);
  });

  it('validates bodies naming the field', async () => {
    const church = makeChurch();
    let res = await call(t.app, 'POST', '/messaging/conversations/start', { token: church.token(), body: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { param: string }) => e.param)).toEqual(expect.arrayContaining(['contentType', 'contentId', 'comment']));
    res = await call(t.app, 'POST', '/messaging/messages/send', { body: [{ churchId: church.churchId, conversationId: randomUUID(), content: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[0].conversationId');
    res = await call(t.app, 'GET', '/messaging/conversations/timeline/ids?ids=nope', { token: church.token() });
    expect(res.statusCode).toBe(400);
    res = await call(t.app, 'GET', `/messaging/conversations/current/${church.churchId}/stream/not-encrypted`);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('contentId');
  });

  it('gets or creates the current conversation for an encrypted content id', async () => {
    const church = makeChurch();
    const serviceId = randomUUID();
    const sealed = encodeURIComponent(t.app.deps.secrets.encrypt(serviceId));
    const first = await call(t.app, 'GET', `/messaging/conversations/current/${church.churchId}/streamingLive/${sealed}`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ churchId: church.churchId, contentType: 'streamingLive', contentId: serviceId });
    const again = await call(t.app, 'GET', `/messaging/conversations/current/${church.churchId}/streamingLive/${sealed}`);
    expect(again.json().id).toBe(first.json().id);
  });

  it('posts one message or several through send, keeping each conversation\'s first and last post and count', async () => {
    const church = makeChurch();
    const live = async (title: string) => {
      const id = randomUUID();
      await t.app.db.insert(conversations).values({ id, churchId: church.churchId, contentType: 'streamingLive', contentId: randomUUID(), title, allowAnonymousPosts: true });
      return id;
    };
    const [a, b] = [await live('A'), await live('B')];
    const one = await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: a, displayName: 'Guest', content: 'first' } });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual([expect.objectContaining({ churchId: church.churchId, conversationId: a, content: 'first', displayName: 'Guest', personId: null, messageType: 'comment' })]);
    expect(new Date(one.json()[0].timeSent).toISOString()).toBe(one.json()[0].timeSent);
    expect(one.json()[0].timeUpdated).toBeNull();
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${a}`)).json()).toMatchObject({ postCount: 1, firstPostId: one.json()[0].id, lastPostId: one.json()[0].id });

    const many = await call(t.app, 'POST', '/messaging/messages/send', {
      token: church.token(),
      body: [
        { churchId: church.churchId, conversationId: a, content: 'second' },
        { churchId: church.churchId, conversationId: b, content: 'only in B' },
        { churchId: church.churchId, conversationId: a, content: 'third' },
      ],
    });
    expect(many.statusCode).toBe(200);
    const [second, inB, third] = many.json();
    expect(second).toMatchObject({ conversationId: a, personId: church.personId });
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${a}`)).json()).toMatchObject({ postCount: 3, firstPostId: one.json()[0].id, lastPostId: third.id });
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${b}`)).json()).toMatchObject({ postCount: 1, firstPostId: inB.id, lastPostId: inB.id });
    // the batch's messages share their transaction's time
    const contents = (await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${a}`)).json().map((m: { content: string }) => m.content);
    expect(contents[0]).toBe('first');
    expect(contents.slice(1).sort()).toEqual(['second', 'third']);

    // one unknown conversation in a batch refuses the batch: nothing of it is saved
    const refused = await call(t.app, 'POST', '/messaging/messages/send', {
      body: [
        { churchId: church.churchId, conversationId: b, content: 'lost' },
        { churchId: church.churchId, conversationId: randomUUID(), content: 'nowhere' },
      ],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].param).toBe('[1].conversationId');
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${b}`)).json()).toMatchObject({ postCount: 1 });
  });

  it('saves concurrent sends to one chat each with its own time and counts them all, gating each post', async () => {
    const church = makeChurch();
    const live = randomUUID();
    await t.app.db.insert(conversations).values({ id: live, churchId: church.churchId, contentType: 'streamingLive', contentId: randomUUID(), title: 'Live', allowAnonymousPosts: true });
    // posts arriving while one to the same chat is in flight share the next statement
    const sent = await Promise.all(
      Array.from({ length: 25 }, (_, i) => call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: live, displayName: `Viewer ${i}`, content: `m${i}` } })),
    );
    expect(sent.map((r) => r.statusCode)).toEqual(sent.map(() => 200));
    const rows = sent.map((r) => r.json()[0] as { id: string; content: string; displayName: string; timeSent: string });
    rows.forEach((m, i) => expect(m).toMatchObject({ content: `m${i}`, displayName: `Viewer ${i}`, conversationId: live }));
    // each stamped apart (the answer shows milliseconds; the database keeps microseconds)
    const stamps = await t.app.db.select({ timeSent: messages.timeSent }).from(messages).where(eq(messages.conversationId, live));
    expect(stamps).toHaveLength(25);
    const times = await t.app.db.execute(sql`select count(distinct time_sent)::int as n from messages where conversation_id = ${live}`);
    expect(rowsOf<{ n: number }>(times)[0]!.n).toBe(25);
    const listed = (await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${live}`)).json() as Array<{ id: string }>;
    expect(listed.map((m) => m.id).sort()).toEqual(rows.map((m) => m.id).sort());
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${live}`)).json()).toMatchObject({ postCount: 25, firstPostId: listed[0]!.id, lastPostId: listed[24]!.id });

    // a person note: posts of the notes permission and public ones at once; only the first are saved and counted
    const editor = church.token(['People.Edit']);
    const note = await call(t.app, 'POST', '/messaging/conversations/start', { token: editor, body: { contentType: 'person', contentId: randomUUID(), comment: 'Opened' } });
    const mixed = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(t.app, 'POST', '/messaging/messages/send', { ...(i % 2 ? {} : { token: editor }), body: { churchId: church.churchId, conversationId: note.json().id, content: `n${i}` } }),
      ),
    );
    expect(mixed.map((r) => r.statusCode)).toEqual([200, 401, 200, 401, 200, 401, 200, 401]);
    const notes = (await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${note.json().id}`, { token: editor })).json() as Array<{ content: string }>;
    expect(notes[0]!.content).toBe('Opened');
    expect(notes.slice(1).map((m) => m.content).sort()).toEqual(['n0', 'n2', 'n4', 'n6']);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${note.json().id}`, { token: editor })).json()).toMatchObject({ postCount: 5 });
    // a post the database refuses (a NUL in its text) fails alone, not the posts stamped with it
    const withNul = await Promise.all(
      ['ok0', 'ok1', 'a\u0000b', 'ok3'].map((content) => call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: live, content } })),
    );
    expect(withNul.map((r) => r.statusCode)).toEqual([200, 200, 400, 200]);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${live}`)).json()).toMatchObject({ postCount: 28 });
    // and one to a chat that does not exist is refused alone
    const [ok, unknown] = await Promise.all([
      call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: live, content: 'last' } }),
      call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: randomUUID(), content: 'nowhere' } }),
    ]);
    expect([ok!.statusCode, unknown!.statusCode]).toEqual([200, 400]);
    expect(unknown!.json().errors[0].param).toBe('conversationId');
  });

  it('posts several messages to a chat in one statement, stamped and counted in their order', async () => {
    const church = makeChurch();
    const live = randomUUID();
    await t.app.db.insert(conversations).values({ id: live, churchId: church.churchId, contentType: 'streamingLive', contentId: randomUUID(), allowAnonymousPosts: true });
    const post = (content: string, ip = '10.0.0.1') => ({ personId: null, displayName: 'Guest', content, ip, deniedTypes: ['person', 'personConfidential'] });
    await t.app.db.insert(blockedIps).values({ id: randomUUID(), churchId: church.churchId, conversationId: live, ipAddress: '10.0.0.9' });
    const results = await postMessages(t.app.db, church.churchId, live, [post('a'), post('blocked', '10.0.0.9'), post('b'), post('c')]);
    expect(results.map((r) => [r?.conversation.blocked, r?.message?.content ?? null])).toEqual([
      [false, 'a'],
      [true, null],
      [false, 'b'],
      [false, 'c'],
    ]);
    const listed = (await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${live}`)).json() as Array<{ id: string; content: string }>;
    expect(listed.map((m) => m.content)).toEqual(['a', 'b', 'c']);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${live}`)).json()).toMatchObject({ postCount: 3, firstPostId: listed[0]!.id, lastPostId: listed[2]!.id });
    expect(await postMessages(t.app.db, church.churchId, randomUUID(), [post('nowhere')])).toEqual([undefined]);
  });

  it('gates person notes on every route, public ones included', async () => {
    const church = makeChurch();
    const editor = church.token(['People.Edit']);
    const personId = randomUUID();
    const res = await call(t.app, 'POST', '/messaging/conversations/start', { token: editor, body: { contentType: 'person', contentId: personId, comment: 'Called today' } });
    expect(res.statusCode).toBe(200);
    const conv = res.json();
    expect((await call(t.app, 'POST', '/messaging/conversations/start', { token: church.token(), body: { contentType: 'person', contentId: personId, comment: 'x' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/conversations/start', { token: editor, body: { contentType: 'personConfidential', contentId: personId, comment: 'x' } })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/person/${personId}`)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${conv.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${conv.id}`, { token: editor })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/conversations/messages/person/${personId}`, { token: church.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv.id, content: 'sneaky' } })).statusCode).toBe(401);
    // a token of another church opens nothing either; a refused send saves nothing
    expect((await call(t.app, 'POST', '/messaging/messages/send', { token: makeChurch().token(['People.Edit']), body: { churchId: church.churchId, conversationId: conv.id, content: 'sneaky' } })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${conv.id}`, { token: editor })).json().map((m: { content: string }) => m.content)).toEqual(['Called today']);
    // with the notes permission of the church, send posts in the note and moves its counters
    const noted = await call(t.app, 'POST', '/messaging/messages/send', { token: editor, body: { churchId: church.churchId, conversationId: conv.id, content: 'Followed up' } });
    expect(noted.statusCode).toBe(200);
    expect(noted.json()[0]).toMatchObject({ content: 'Followed up', personId: church.personId });
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv.id}`, { token: editor })).json()).toMatchObject({ postCount: 2, lastPostId: noted.json()[0].id });
    expect((await call(t.app, 'POST', '/messaging/messages', { token: church.token(), body: { conversationId: conv.id, content: 'sneaky' } })).statusCode).toBe(401);
    const confidential = church.token(['People.View Confidential Notes']);
    const c2 = await call(t.app, 'POST', '/messaging/conversations/start', { token: confidential, body: { contentType: 'personConfidential', contentId: personId, comment: 'Private' } });
    expect(c2.statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${c2.json().id}`, { token: editor })).statusCode).toBe(401);
  });

  it('lets only the author or Content.Edit edit, never reassigning the author; leaders may delete group messages', async () => {
    const church = makeChurch();
    const groupId = randomUUID();
    const author = church.token();
    const start = await call(t.app, 'POST', '/messaging/conversations/start', { token: author, body: { contentType: 'group', contentId: groupId, groupId, comment: 'Original' } });
    const conv = start.json();
    const [msg] = (await call(t.app, 'GET', `/messaging/messages/conversation/${conv.id}`, { token: author })).json();
    const stranger = church.token([], { personId: randomUUID() });
    const leader = church.token([], { personId: randomUUID(), leaderGroupIds: [groupId] });
    const staff = church.token(['Content.Edit'], { personId: randomUUID() });
    expect((await call(t.app, 'POST', '/messaging/messages', { token: stranger, body: { id: msg.id, conversationId: conv.id, content: 'hacked' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/messages', { token: leader, body: { id: msg.id, conversationId: conv.id, content: 'moderated' } })).statusCode).toBe(401);
    const edited = await call(t.app, 'POST', '/messaging/messages', { token: staff, body: { id: msg.id, conversationId: conv.id, content: 'Edited', personId: randomUUID(), displayName: 'Someone else' } });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()[0]).toMatchObject({ content: 'Edited', personId: church.personId, displayName: msg.displayName });
    expect((await call(t.app, 'DELETE', `/messaging/messages/${church.churchId}/${msg.id}`, { token: stranger })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/messaging/messages/${church.churchId}/${msg.id}`, { token: leader })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/messages/${church.churchId}/${msg.id}`)).statusCode).toBe(404);
    // the conversation's counters follow
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv.id}`)).json()).toMatchObject({ postCount: 0, lastPostId: null });
    // delete the conversation: a stranger cannot, staff can
    expect((await call(t.app, 'DELETE', `/messaging/conversations/${church.churchId}/${conv.id}`, { token: stranger })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/messaging/conversations/${church.churchId}/${conv.id}`, { token: staff })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv.id}`)).statusCode).toBe(404);
  });

  it('notifies the group members of a new group message from membership, never the author', async () => {
    const church = makeChurch();
    const groupId = randomUUID();
    const author = t.membership.addPerson(church.churchId, { groupIds: [groupId] });
    const member = t.membership.addPerson(church.churchId, { groupIds: [groupId] });
    const outsider = t.membership.addPerson(church.churchId);
    const token = church.token([], { personId: author.id });
    const res = await call(t.app, 'POST', '/messaging/conversations/start', { token, body: { contentType: 'group', contentId: groupId, groupId, title: 'Youth', comment: 'Pizza Friday' } });
    expect(res.statusCode).toBe(200);
    await t.drain();
    const rows = await t.app.db.select().from(notifications).where(eq(notifications.churchId, church.churchId));
    expect(rows.map((r) => r.personId)).toEqual([member.id]);
    expect(rows[0]!.message).toContain('Pizza Friday');
    expect(t.membership.calls.some((c) => c.path === '/membership/internal/people/contacts' && (c.body as { groupId?: string }).groupId === groupId)).toBe(true);
    expect(outsider.id).not.toBe(member.id);
    // posts of the caller's groups (membership facts) and of a group
    const posts = await call(t.app, 'GET', '/messaging/conversations/posts', { token: church.token([], { personId: member.id }) });
    expect(posts.json().map((c: { id: string }) => c.id)).toEqual([res.json().id]);
    expect((await call(t.app, 'GET', `/messaging/conversations/posts/group/${groupId}`, { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/messaging/conversations/posts', { token: church.token([], { personId: outsider.id }) })).json()).toEqual([]);
  });

  it('saves conversations in a batch, all or nothing', async () => {
    const church = makeChurch();
    const token = church.token();
    const res = await call(t.app, 'POST', '/messaging/conversations', { token, body: [{ contentType: 'event', contentId: 'e1', title: 'A' }, { id: randomUUID(), contentType: 'event', contentId: 'e2' }] });
    expect(res.statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/event/e1`)).json()).toEqual([]);
    const ok = await call(t.app, 'POST', '/messaging/conversations', { token, body: [{ contentType: 'event', contentId: 'e1', title: 'A' }] });
    expect(ok.statusCode).toBe(200);
    const upd = await call(t.app, 'POST', '/messaging/conversations', { token, body: { id: ok.json()[0].id, contentType: 'event', contentId: 'e1', title: 'B' } });
    expect(upd.json()[0].title).toBe('B');
  });
});

describe('names of Object.prototype as content types (issue 31)', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('%s is refused as a content type (400), never a 500, and no error shows a function', async (type) => {
    const church = makeChurch();
    const token = church.token(['People.View', 'Content.Edit']);
    const sealed = encodeURIComponent(t.app.deps.secrets.encrypt(randomUUID()));
    const answers = [
      await call(t.app, 'GET', `/messaging/conversations/messages/${type}/x`, { token }),
      await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${type}/x`),
      await call(t.app, 'GET', `/messaging/conversations/current/${church.churchId}/${type}/${sealed}`),
      await call(t.app, 'POST', '/messaging/conversations', { token, body: [{ contentType: type, contentId: 'x' }] }),
      await call(t.app, 'POST', '/messaging/conversations/start', { token, body: { contentType: type, contentId: 'x', comment: 'hi' } }),
      await call(t.app, 'GET', `/messaging/deliverylogs/content/${type}/x`, { token }),
      await call(t.app, 'POST', '/messaging/notifications/create', { token, body: { peopleIds: [randomUUID()], contentType: type, message: 'hi' } }),
    ];
    for (const res of answers) {
      expect([res.statusCode, res.json().errors[0].param]).toEqual([400, expect.stringMatching(/contentType$/)]);
      expect(res.body).not.toMatch(/function|=>|native code/);
    }
  });

  it('gates person notes by a lookup that finds nothing for any other word', async () => {
    const church = makeChurch();
    const conv = randomUUID();
    await t.app.db.insert(conversations).values({ id: conv, churchId: church.churchId, contentType: 'valueOf2', contentId: 'x' });
    const res = await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv}`);
    expect(res.statusCode).toBe(200);
    const note = randomUUID();
    await t.app.db.insert(conversations).values({ id: note, churchId: church.churchId, contentType: 'person', contentId: randomUUID() });
    const refused = await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${note}`);
    expect([refused.statusCode, refused.json().errors[0]]).toEqual([401, 'Missing permission: People.Edit']);
  });
});
