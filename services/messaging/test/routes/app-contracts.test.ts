import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { conversations, devices, messageReactions, messages, notifications, privateMessages } from '../../src/db/schema';
import { eventually, makeChurch, sleep, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

// Contract tests: each names the client file whose reads and writes it keeps (shared/clients/frontend-calls.json).

const t = useMessaging();

type Church = ReturnType<typeof makeChurch>;
const person = (church: Church, permissions: string[] = [], extra: Record<string, unknown> = {}) => {
  const personId = randomUUID();
  return { personId, token: church.token(permissions, { personId, ...extra }) };
};

async function groupChat(church: Church, groupId = randomUUID()) {
  const id = randomUUID();
  await t.app.db.insert(conversations).values({ id, churchId: church.churchId, contentType: 'group', contentId: groupId, groupId, title: 'Group chat' });
  return { id, groupId };
}

describe('email templates as B1Admin edits them', () => {
  it('B1Admin:src/settings/EmailTemplatesPage.tsx lists, loads, saves and deletes by church and id, under /messaging/messaging too', async () => {
    const church = makeChurch();
    const token = church.token(['People.Edit']);
    for (const base of ['/messaging/emailTemplates', '/messaging/messaging/emailTemplates']) {
      // B1Admin:src/settings/components/EmailTemplateEdit.tsx posts `[t]` with `id: ""` for a new template
      const saved = await call(t.app, 'POST', base, { token, body: [{ id: '', name: 'Welcome', subject: 'Hi {{firstName}}', htmlContent: '<p>Hi</p>', category: 'General' }] });
      expect(saved.statusCode).toBe(200);
      const template = saved.json()[0];
      expect(template).toEqual({
        id: expect.any(String),
        churchId: church.churchId,
        name: 'Welcome',
        subject: 'Hi {{firstName}}',
        htmlContent: '<p>Hi</p>',
        category: 'General',
        dateCreated: expect.any(String),
        dateModified: expect.any(String),
      });
      expect((await call(t.app, 'GET', base, { token })).json().map((x: { id: string }) => x.id)).toContain(template.id);
      expect((await call(t.app, 'GET', `${base}/${template.id}`, { token })).json()).toEqual(template);
      // a save of the loaded template changes only what it carries
      const renamed = await call(t.app, 'POST', base, { token, body: [{ ...template, name: 'Welcome 2' }] });
      expect(renamed.json()[0]).toMatchObject({ id: template.id, name: 'Welcome 2', htmlContent: '<p>Hi</p>' });
      // another church's id is not found; without a writer's permission, 401
      expect((await call(t.app, 'DELETE', `${base}/${church.churchId}/${template.id}`, { token: makeChurch().token(['People.Edit']) })).statusCode).toBe(404);
      expect((await call(t.app, 'DELETE', `${base}/${church.churchId}/${template.id}`, { token: church.token() })).statusCode).toBe(401);
      const gone = await call(t.app, 'DELETE', `${base}/${church.churchId}/${template.id}`, { token });
      expect([gone.statusCode, gone.json()]).toEqual([200, {}]);
      expect((await call(t.app, 'GET', `${base}/${template.id}`, { token })).statusCode).toBe(404);
    }
    // every save and delete went to the audit log (membership's changes job, in the change's transaction)
    await t.drain();
    const reported = t.app.deps.queue.handedOff
      .filter((j) => j.name === 'membership.changes')
      .flatMap((j) => (j.data as { records: Array<{ churchId: string; entityType: string; action: string }> }).records)
      .filter((r) => r.churchId === church.churchId && r.entityType === 'emailTemplate')
      .map((r) => r.action)
      .sort();
    expect(reported).toEqual(['created', 'created', 'destroyed', 'destroyed', 'updated', 'updated']);
  });
});

describe('group chat as B1App shows it', () => {
  it('B1App:src/app/[sdSlug]/mobile/components/group/GroupChatModal.tsx toggles reactions, reads them on each message, and hears them pushed', async () => {
    const church = makeChurch();
    const { id: conv, groupId } = await groupChat(church);
    const ann = person(church);
    const bob = person(church);
    const posted = await call(t.app, 'POST', '/messaging/messages', { token: ann.token, body: [{ conversationId: conv, content: 'Hello group', personId: ann.personId }] });
    const messageId = posted.json()[0].id as string;
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { token: ann.token, body: { churchId: church.churchId, conversationId: conv, socketId: socket.socketId, personId: ann.personId } });

    let res = await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { token: bob.token, body: { emoji: '👍' } });
    expect([res.statusCode, res.json()]).toEqual([200, { messageId, emoji: '👍', added: true, reactions: [{ emoji: '👍', count: 1, mine: true }] }]);
    const pushed = await socket.waitFor('reaction');
    expect(pushed).toEqual({ churchId: church.churchId, conversationId: conv, action: 'reaction', data: { messageId, conversationId: conv, personId: bob.personId, emoji: '👍', added: true } });
    await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { token: ann.token, body: { emoji: '👍' } });
    await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { token: ann.token, body: { emoji: '🙏' } });

    // the conversation's messages carry `reactions: [{emoji, count, mine}]` for the caller
    const page = await call(t.app, 'GET', `/messaging/conversations/messages/group/${groupId}?page=1&limit=50`, { token: ann.token });
    expect(page.statusCode).toBe(200);
    expect(page.json()[0].messages[0].reactions).toEqual([
      { emoji: '👍', count: 2, mine: true },
      { emoji: '🙏', count: 1, mine: true },
    ]);
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${conv}`, { token: bob.token })).json()[0].reactions).toEqual([
      { emoji: '👍', count: 2, mine: true },
      { emoji: '🙏', count: 1, mine: false },
    ]);
    // a second tap takes it back
    res = await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { token: bob.token, body: { emoji: '👍' } });
    expect(res.json()).toMatchObject({ added: false, reactions: [{ emoji: '👍', count: 1, mine: false }, { emoji: '🙏', count: 1, mine: false }] });
    await socket.waitFor('reaction', (r) => (r.data as { added: boolean }).added === false);

    // not an emoji, another church's message, no token
    expect((await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { token: bob.token, body: { emoji: 'lol' } })).json().errors[0].param).toBe('emoji');
    expect((await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { token: makeChurch().token(), body: { emoji: '👍' } })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/messaging/messages/${messageId}/reactions`, { body: { emoji: '👍' } })).statusCode).toBe(401);
    await socket.close();
  });

  it('B1App:src/components/video/chat/ChatMessage.tsx and GroupChatModal.tsx delete by the message id: its author or a moderator, pushed as deleteMessage', async () => {
    const church = makeChurch();
    const { id: conv, groupId } = await groupChat(church);
    const ann = person(church);
    const post = async (content: string) => (await call(t.app, 'POST', '/messaging/messages', { token: ann.token, body: [{ conversationId: conv, content }] })).json()[0].id as string;
    const [mine, byLeader, byStaff] = [await post('one'), await post('two'), await post('three')];
    await call(t.app, 'POST', `/messaging/messages/${mine}/reactions`, { token: ann.token, body: { emoji: '🎉' } });
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { token: ann.token, body: { churchId: church.churchId, conversationId: conv, socketId: socket.socketId } });

    expect((await call(t.app, 'DELETE', `/messaging/messages/${mine}`, { token: person(church).token })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/messaging/messages/${mine}`, { token: makeChurch().token('all') })).statusCode).toBe(404);
    const res = await call(t.app, 'DELETE', `/messaging/messages/${mine}`, { token: ann.token });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect((await socket.waitFor('deleteMessage')).data).toEqual({ id: mine, conversationId: conv });
    expect(await t.app.db.select().from(messageReactions).where(eq(messageReactions.messageId, mine))).toEqual([]);
    expect((await call(t.app, 'DELETE', `/messaging/messages/${byLeader}`, { token: church.token([], { leaderGroupIds: [groupId] }) })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/messaging/messages/${byStaff}`, { token: church.token(['Content.Edit']) })).statusCode).toBe(200);
    const [after] = await t.app.db.select().from(conversations).where(eq(conversations.id, conv));
    expect(after).toMatchObject({ postCount: 0, firstPostId: null, lastPostId: null });
    await socket.close();
  });

  it('B1App:src/components/video/chat/ChatMessage.tsx: a chat host moderates a live chat, not a group\'s', async () => {
    const church = makeChurch();
    const live = randomUUID();
    await t.app.db.insert(conversations).values({ id: live, churchId: church.churchId, contentType: 'streamingLive', contentId: randomUUID(), allowAnonymousPosts: true });
    const sent = await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: live, displayName: 'Guest', content: 'spam' } });
    const host = church.token(['Chat.Host']);
    expect((await call(t.app, 'DELETE', `/messaging/messages/${sent.json()[0].id}`, { token: host })).statusCode).toBe(200);
    const { id: conv } = await groupChat(church);
    const member = person(church);
    const posted = await call(t.app, 'POST', '/messaging/messages', { token: member.token, body: { conversationId: conv, content: 'mine' } });
    expect((await call(t.app, 'DELETE', `/messaging/messages/${posted.json()[0].id}`, { token: host })).statusCode).toBe(401);
  });
});

describe('private messages as B1App and the AppHelper inbox run them', () => {
  it('B1App:src/app/[sdSlug]/mobile/components/details/MessageConversation.tsx starts a conversation, pairs it and posts: the other person is told', async () => {
    const church = makeChurch();
    const me = person(church, [], { firstName: 'Ann', lastName: 'Lee' });
    const other = person(church);
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { token: other.token, body: { churchId: church.churchId, conversationId: 'alerts', socketId: socket.socketId, personId: other.personId } });
    const conv = await call(t.app, 'POST', '/messaging/conversations', { token: me.token, body: [{ allowAnonymousPosts: false, contentType: 'privateMessage', contentId: me.personId, title: 'Ann Private', visibility: 'hidden' }] });
    const conversationId = conv.json()[0].id as string;
    const pair = await call(t.app, 'POST', '/messaging/privateMessages', { token: me.token, body: [{ fromPersonId: me.personId, toPersonId: other.personId, conversationId }] });
    expect(pair.json()[0]).toMatchObject({ conversationId, fromPersonId: me.personId, toPersonId: other.personId, notifyPersonId: null });
    await socket.waitFor('privateRoomAdded');
    const sent = await call(t.app, 'POST', '/messaging/messages', { token: me.token, body: [{ conversationId, content: 'Coffee?', displayName: 'Ann Lee' }] });
    expect(sent.statusCode).toBe(200);
    // ChatNotificationBridge.tsx reads notifyPersonId, fromPersonId, toPersonId, conversationId and message
    const pushed = await socket.waitFor('privateMessage');
    expect(pushed.data).toMatchObject({ conversationId, fromPersonId: me.personId, toPersonId: other.personId, notifyPersonId: other.personId, message: { content: 'Coffee?' } });
    // AppHelper:packages/apphelper/src/helpers/NotificationService.ts reads notificationCount and pmCount
    expect((await call(t.app, 'GET', '/messaging/notifications/unreadCount', { token: other.token })).json()).toMatchObject({ pmCount: 1 });
    // AppHelper:packages/apphelper/src/components/wrapper/PrivateMessages.tsx reads conversation.messages[0] and notifyPersonId
    const inbox = await call(t.app, 'GET', '/messaging/privateMessages', { token: other.token });
    expect(inbox.json()).toEqual([
      expect.objectContaining({ id: pair.json()[0].id, conversationId, notifyPersonId: other.personId, conversation: expect.objectContaining({ id: conversationId, messages: [expect.objectContaining({ content: 'Coffee?' })] }) }),
    ]);
    expect((await call(t.app, 'GET', '/messaging/notifications/unreadCount', { token: other.token })).json()).toMatchObject({ pmCount: 0 });
    // the message is the conversation's: both read it, nobody else
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${conversationId}`, { token: other.token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${conversationId}`, { token: church.token('all') })).statusCode).toBe(401);
    await socket.close();
  });

  it('B1App:src/app/[sdSlug]/mobile/components/screens/MessagesPage.tsx deletes a conversation from the caller\'s inbox only; a new message brings it back', async () => {
    const church = makeChurch();
    const ann = person(church);
    const bob = person(church);
    const sent = await call(t.app, 'POST', '/messaging/privatemessages', { token: ann.token, body: { toPersonId: bob.personId, content: 'Hi' } });
    const pmId = sent.json()[0].id as string;
    expect((await call(t.app, 'DELETE', `/messaging/privateMessages/${pmId}`, { token: person(church).token })).statusCode).toBe(404);
    const res = await call(t.app, 'DELETE', `/messaging/privateMessages/${pmId}`, { token: bob.token });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect((await call(t.app, 'GET', '/messaging/privatemessages', { token: bob.token })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/messaging/privatemessages', { token: ann.token })).json()).toHaveLength(1);
    await call(t.app, 'POST', '/messaging/privatemessages', { token: ann.token, body: { toPersonId: bob.personId, content: 'Still there?' } });
    expect((await call(t.app, 'GET', '/messaging/privatemessages', { token: bob.token })).json()).toHaveLength(1);
    // once both have deleted it, nothing of it is kept
    await call(t.app, 'DELETE', `/messaging/privateMessages/${pmId}`, { token: bob.token });
    await call(t.app, 'DELETE', `/messaging/privateMessages/${pmId}`, { token: ann.token });
    const conversationId = sent.json()[0].conversationId as string;
    expect(await t.app.db.select().from(privateMessages).where(eq(privateMessages.id, pmId))).toEqual([]);
    expect(await t.app.db.select().from(messages).where(eq(messages.conversationId, conversationId))).toEqual([]);
    expect(await t.app.db.select().from(conversations).where(eq(conversations.id, conversationId))).toEqual([]);
  });
});

describe('the apps\' alerts socket', () => {
  it('AppHelper:packages/apphelper/src/helpers/SocketHelper.ts registers it without a token: the person\'s doorbell rings with the action alone, never the content', async () => {
    const church = makeChurch();
    const ann = person(church, [], { firstName: 'Ann' });
    const bob = person(church);
    const anonymous = await openSocket(t.app);
    const res = await call(t.app, 'POST', '/messaging/connections', { body: [{ conversationId: 'alerts', churchId: church.churchId, displayName: 'Test', socketId: anonymous.socketId, personId: bob.personId }] });
    expect(res.json()[0]).toMatchObject({ personId: null });
    await call(t.app, 'POST', '/messaging/privatemessages', { token: ann.token, body: { toPersonId: bob.personId, content: 'A secret' } });
    const rung = await anonymous.waitFor('privateMessage');
    expect(rung.data).toEqual({});
    await t.drain();
    await anonymous.waitFor('notification');
    await sleep(100);
    expect(JSON.stringify(anonymous.received)).not.toContain('A secret');
    await anonymous.close();
  });
});

describe('notifications as B1App shows them', () => {
  it('B1App:src/app/[sdSlug]/mobile/components/screens/NotificationsPage.tsx clears all of the caller\'s notifications', async () => {
    const church = makeChurch();
    const me = person(church);
    const other = person(church);
    const staff = church.token(['People.Edit']);
    for (const p of [me, other]) t.membership.addPerson(church.churchId, { id: p.personId });
    await call(t.app, 'POST', '/messaging/notifications', { token: staff, body: [{ personId: me.personId, message: 'One' }, { personId: me.personId, message: 'Two' }, { personId: other.personId, message: 'Theirs' }] });
    const mine = await call(t.app, 'GET', '/messaging/notifications/my', { token: me.token });
    // the fields the screen reads
    expect(mine.json()[0]).toEqual(expect.objectContaining({ id: expect.any(String), churchId: church.churchId, message: expect.any(String), timeSent: expect.any(String), isNew: true, contentType: null, contentId: null, link: null }));
    const res = await call(t.app, 'DELETE', '/messaging/notifications/my', { token: me.token });
    expect([res.statusCode, res.json()]).toEqual([200, { removed: 2 }]);
    expect((await call(t.app, 'GET', '/messaging/notifications/my', { token: me.token })).json()).toEqual([]);
    expect(await t.app.db.select().from(notifications).where(eq(notifications.personId, other.personId))).toHaveLength(1);
  });

  it('B1Admin:src/groups/components/GroupMembers.tsx notifies nobody without an error when the sender is the group\'s only member', async () => {
    const church = makeChurch();
    const res = await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [], contentType: 'groupMessage', contentId: randomUUID(), message: 'Message from Pat: hi' } });
    expect([res.statusCode, res.json()]).toEqual([200, []]);
  });
});

describe('person notes as B1Admin keeps them', () => {
  it('B1Admin:src/people/PersonPage.tsx finds the notes conversation, and hears of a new one in the person\'s room', async () => {
    const church = makeChurch();
    const personId = randomUUID();
    const staff = church.token(['People.Edit', 'People.View Confidential Notes']);
    const socket = await openSocket(t.app);
    const room = `content-person-${personId}`;
    // the room tells of a person's notes: the notes permission, as every read of them
    expect((await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: room, socketId: socket.socketId } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/connections', { token: staff, body: { churchId: church.churchId, conversationId: room, socketId: socket.socketId } })).statusCode).toBe(200);
    const created = await call(t.app, 'POST', '/messaging/conversations', { token: staff, body: [{ allowAnonymousPosts: false, contentType: 'person', contentId: personId, title: 'Pat Notes', visibility: 'hidden' }] });
    const activity = await socket.waitFor('conversationActivity');
    expect(activity.data).toEqual({ contentType: 'person', contentId: personId, conversationId: created.json()[0].id, kind: 'created' });
    // AppHelper:packages/apphelper/src/components/notes/AddNote.tsx posts the message it loaded (with its extra fields) to edit it
    const note = await call(t.app, 'POST', '/messaging/messages', { token: staff, body: [{ id: '', conversationId: created.json()[0].id, content: 'First visit' }] });
    const loaded = (await call(t.app, 'GET', `/messaging/messages/${church.churchId}/${note.json()[0].id}`, { token: staff })).json();
    const edited = await call(t.app, 'POST', '/messaging/messages', { token: staff, body: [{ ...loaded, content: 'First visit (edited)' }] });
    expect(edited.json()[0]).toMatchObject({ id: loaded.id, content: 'First visit (edited)', personId: loaded.personId });
    // the confidential conversation is looked up by content, newest first
    const confidential = await call(t.app, 'POST', '/messaging/conversations', { token: staff, body: [{ contentType: 'personConfidential', contentId: personId, visibility: 'hidden' }] });
    const found = await call(t.app, 'GET', `/messaging/conversations/messages/personConfidential/${personId}?limit=1`, { token: staff });
    expect(found.json()[0].id).toBe(confidential.json()[0].id);
    expect((await call(t.app, 'GET', `/messaging/conversations/messages/personConfidential/${personId}?limit=1`, { token: church.token(['People.Edit']) })).statusCode).toBe(401);
    await socket.close();
  });
});

describe('devices as B1Admin\'s profile shows them', () => {
  it('B1Admin:src/profile/DevicesPage.tsx lists the caller\'s own devices, never their push tokens', async () => {
    const church = makeChurch();
    const me = person(church);
    const mine = randomUUID();
    await t.app.db.insert(devices).values([
      { id: mine, churchId: church.churchId, personId: me.personId, appName: 'FreePlay', label: 'Lobby TV', pushToken: 'ExponentPushToken[tv]', paired: true },
      { id: randomUUID(), churchId: church.churchId, personId: randomUUID(), appName: 'FreePlay', label: 'Someone else' },
    ]);
    const res = await call(t.app, 'GET', '/messaging/devices/my', { token: me.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: mine,
        churchId: church.churchId,
        personId: me.personId,
        appName: 'FreePlay',
        deviceId: null,
        label: 'Lobby TV',
        deviceInfo: null,
        registrationDate: expect.any(String),
        lastActiveDate: expect.any(String),
        pairingCode: null,
        paired: true,
      },
    ]);
    // B1Admin:src/profile/components/DeviceEdit.tsx posts the device back with a new label
    const saved = await call(t.app, 'POST', '/messaging/devices', { token: me.token, body: [{ ...res.json()[0], label: 'Foyer TV' }] });
    expect(saved.json()[0]).toMatchObject({ id: mine, label: 'Foyer TV' });
    expect((await t.app.db.select().from(devices).where(and(eq(devices.id, mine))))[0]!.pushToken).toBe('ExponentPushToken[tv]');
  });
});

describe('what leaves the service', () => {
  it('answers only the declared fields of a row (a private conversation\'s inbox flags stay inside)', async () => {
    const church = makeChurch();
    const ann = person(church);
    const sent = await call(t.app, 'POST', '/messaging/privatemessages', { token: ann.token, body: { toPersonId: randomUUID(), content: 'Hi' } });
    expect(Object.keys(sent.json()[0]).sort()).toEqual(['churchId', 'conversation', 'conversationId', 'deliveryMethod', 'fromPersonId', 'id', 'notifyPersonId', 'toPersonId', 'updatedAt']);
    await sleep(10);
    await eventually(async () => (await t.app.db.select().from(privateMessages).where(eq(privateMessages.id, sent.json()[0].id))).length === 1);
  });
});
