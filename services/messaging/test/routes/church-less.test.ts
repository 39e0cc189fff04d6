import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, tokenFor } from '@church/common/testing';
import { conversations, devices, messages, notifications } from '../../src/db/schema';
import { makeChurch, useMessaging } from '../setup';

const t = useMessaging();

/** membership's placeholder church of users without one: every such user's token carries it */
const NO_CHURCH = '00000000-0000-0000-0000-000000000000';
const churchless = () => tokenFor({ churchId: NO_CHURCH, personId: null, permissions: [], userId: randomUUID() });

describe('users without a church own nothing shared', () => {
  it('refuses a church-less token everywhere a church is needed, and stores nothing under the placeholder church', async () => {
    const first = churchless();
    const second = churchless();
    const posted = await call(t.app, 'POST', '/messaging/conversations', { token: first, body: [{ contentType: 'group', contentId: randomUUID(), title: 'Mine' }] });
    expect(posted.statusCode).toBe(401);
    for (const [method, url, body] of [
      ['POST', '/messaging/conversations/start', { contentType: 'group', contentId: randomUUID(), comment: 'hello' }],
      ['POST', '/messaging/notifications', [{ personId: randomUUID(), message: 'hi' }]],
      ['POST', '/messaging/notifications/create', { peopleIds: [randomUUID()], message: 'hi' }],
      ['GET', '/messaging/notifications/my', undefined],
      ['GET', '/messaging/devices/my', undefined],
      ['POST', '/messaging/devices/enroll', { appName: 'B1App', deviceId: 'd1', pushToken: 'ExponentPushToken[x]' }],
      ['POST', '/messaging/privatemessages', [{ toPersonId: randomUUID(), content: 'hi' }]],
    ] as const) {
      const res = await call(t.app, method, url, { token: second, body });
      expect([url, res.statusCode, res.json().errors[0]]).toEqual([url, 401, 'Select a church first: a user without a church has no messaging data']);
    }
    for (const table of [conversations, messages, notifications, devices]) expect(await t.app.db.select().from(table).where(eq(table.churchId, NO_CHURCH))).toEqual([]);
  });

  it('never shows what is kept under the placeholder church, to anyone', async () => {
    // a conversation as the old routes stored it for a church-less user
    const conv = randomUUID();
    await t.app.db.insert(conversations).values({ id: conv, churchId: NO_CHURCH, contentType: 'group', contentId: randomUUID(), title: 'Private' });
    for (const token of [undefined, churchless()]) {
      const read = await call(t.app, 'GET', `/messaging/conversations/${NO_CHURCH}/${conv}`, { token });
      expect([read.statusCode, read.json().errors[0]]).toEqual([404, 'Church not found']);
      const list = await call(t.app, 'GET', `/messaging/messages/catchup/${NO_CHURCH}/${conv}`, { token });
      expect(list.statusCode).toBe(404);
    }
    const sent = await call(t.app, 'POST', '/messaging/messages/send', { token: churchless(), body: [{ churchId: NO_CHURCH, conversationId: conv, content: 'hi', displayName: 'X' }] });
    expect([sent.statusCode, sent.json().errors[0]]).toEqual([400, { msg: 'No church has this id', param: '[0].churchId', location: 'body' }]);
    expect(await t.app.db.select().from(messages).where(eq(messages.conversationId, conv))).toEqual([]);
  });

  it('lets a church-less token use the public routes as anyone may, keeping nothing of theirs under the placeholder', async () => {
    const church = makeChurch();
    const res = await call(t.app, 'POST', '/messaging/devices', { token: churchless(), body: [{ appName: 'B1Checkin', deviceId: `dev-${randomUUID()}` }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0].churchId ?? null).toBeNull();
    // a church-less user posting in a church's public chat posts as a guest
    const conv = randomUUID();
    await t.app.db.insert(conversations).values({ id: conv, churchId: church.churchId, contentType: 'streamingLive', contentId: randomUUID(), title: 'Live', allowAnonymousPosts: true });
    const sent = await call(t.app, 'POST', '/messaging/messages/send', { token: churchless(), body: [{ churchId: church.churchId, conversationId: conv, content: 'hello', displayName: 'Guest' }] });
    expect(sent.statusCode).toBe(200);
    expect(sent.json()[0]).toMatchObject({ churchId: church.churchId, personId: null, displayName: 'Guest' });
  });
});
