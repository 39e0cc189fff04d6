import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, readMailbox, readOutbox } from '@church/common/testing';
import { notifyPeople } from '@church/common';
import { deliveryLogs, devices, notifications } from '../../src/db/schema';
import { makeChurch, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

const t = useMessaging({ config: { PING_RATE_PER_MINUTE: '8' } });

describe('notifications and preferences', () => {
  it('creates preferences with defaults on first read and saves only your own', async () => {
    const church = makeChurch();
    const token = church.token();
    const first = await call(t.app, 'GET', '/messaging/notificationpreferences/my', { token });
    expect(first.json()).toMatchObject({ personId: church.personId, allowPush: true, emailFrequency: 'daily' });
    const saved = await call(t.app, 'POST', '/messaging/notificationpreferences', { token, body: { emailFrequency: 'individual', allowPush: false } });
    expect(saved.json()[0]).toMatchObject({ id: first.json().id, emailFrequency: 'individual', allowPush: false });
    expect((await call(t.app, 'POST', '/messaging/notificationpreferences', { token, body: { emailFrequency: 'hourly' } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/messaging/notificationpreferences', { token, body: { personId: randomUUID() } })).statusCode).toBe(400);
  });

  it('creates for many people, counts unread, marks read on /my, escalates to socket, push and email', async () => {
    const church = makeChurch();
    const pushy = t.membership.addPerson(church.churchId);
    const emailer = t.membership.addPerson(church.churchId);
    const quiet = t.membership.addPerson(church.churchId);
    await t.app.db.insert(devices).values({ id: randomUUID(), churchId: church.churchId, personId: pushy.id, appName: 'B1', pushToken: 'ExponentPushToken[abc]' });
    await call(t.app, 'POST', '/messaging/notificationpreferences', { token: church.token([], { personId: emailer.id }), body: { emailFrequency: 'individual' } });
    await call(t.app, 'POST', '/messaging/notificationpreferences', { token: church.token([], { personId: quiet.id }), body: { emailFrequency: 'never', allowPush: false } });
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { token: church.token([], { personId: pushy.id }), body: { churchId: church.churchId, conversationId: 'alerts', socketId: socket.socketId, personId: pushy.id } });

    const res = await call(t.app, 'POST', '/messaging/notifications/create', {
      token: church.token(),
      body: { peopleIds: [pushy.id, emailer.id, quiet.id, church.personId], contentType: 'task', contentId: 't1', message: 'A task for you', link: '/tasks/t1' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(3); // never the caller
    await t.drain();
    const pushed = await socket.waitFor('notification');
    expect(pushed.data).toMatchObject({ notification: { message: 'A task for you' }, unreadCount: 1 });
    const outbox = await readOutbox<{ token: string; body: string }>(t.config.DATA_DIR, 'push');
    expect(outbox.filter((p) => p.token === 'ExponentPushToken[abc]').map((p) => p.body)).toEqual(['A task for you']);
    const mail = readMailbox(t.config).filter((m) => m.to === emailer.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain('A task for you');
    expect(mail[0]!.text).toContain('https://app.church.local/tasks/t1');
    expect(readMailbox(t.config).some((m) => m.to === quiet.email || m.to === pushy.email)).toBe(false);
    const logs = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, church.churchId));
    expect(logs.map((l) => `${l.channel}:${l.status}:${l.personId === pushy.id ? 'pushy' : l.personId === emailer.id ? 'emailer' : 'other'}`).sort()).toEqual(['email:queued:emailer', 'push:sent:pushy']);

    const pushyToken = church.token([], { personId: pushy.id });
    expect((await call(t.app, 'GET', '/messaging/notifications/unreadCount', { token: pushyToken })).json()).toEqual({ count: 1, notificationCount: 1, pmCount: 0 });
    expect((await call(t.app, 'GET', '/messaging/notifications/my', { token: pushyToken })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/messaging/notifications/unreadCount', { token: pushyToken })).json()).toEqual({ count: 0, notificationCount: 0, pmCount: 0 });
    // delivery logs: staff read by person and recent; a person reads their own
    const staff = church.token(['People.View']);
    expect((await call(t.app, 'GET', `/messaging/deliverylogs/person/${pushy.id}`, { token: pushyToken })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/messaging/deliverylogs/person/${pushy.id}`, { token: church.token() })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/messaging/deliverylogs/recent?limit=1', { token: staff })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/messaging/deliverylogs/content/task/t1', { token: staff })).json()).toHaveLength(2);
    expect((await call(t.app, 'GET', `/messaging/deliverylogs/${logs[0]!.id}`, { token: staff })).json().id).toBe(logs[0]!.id);
    expect((await call(t.app, 'GET', `/messaging/deliverylogs/${logs[0]!.id}`, { token: makeChurch().token(['People.View']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/messaging/deliverylogs/recent?limit=0', { token: staff })).statusCode).toBe(400);
    await socket.close();
  });

  it('reads, marks read and deletes only your own (or with People permissions)', async () => {
    const church = makeChurch();
    const me = church.token();
    t.membership.addPerson(church.churchId, { id: church.personId });
    const created = await call(t.app, 'POST', '/messaging/notifications', { token: church.token(['People.Edit'], { personId: randomUUID() }), body: [{ personId: church.personId, message: 'Hello' }] });
    expect(created.statusCode).toBe(200);
    const id = created.json()[0].id;
    expect((await call(t.app, 'POST', '/messaging/notifications', { token: me, body: [{ personId: randomUUID(), message: 'Spam' }] })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/notifications/${church.churchId}/${id}`, { token: me })).json().message).toBe('Hello');
    expect((await call(t.app, 'GET', `/messaging/notifications/${church.churchId}/${id}`, { token: church.token([], { personId: randomUUID() }) })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/notifications/${church.churchId}/person/${church.personId}`, { token: me })).json()).toHaveLength(1);
    expect((await call(t.app, 'POST', `/messaging/notifications/markRead/${church.churchId}/${church.personId}`, { token: me })).json()).toEqual({ marked: 1 });
    expect((await call(t.app, 'DELETE', `/messaging/notifications/${church.churchId}/${id}`, { token: makeChurch().token('all') })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/messaging/notifications/${church.churchId}/${id}`, { token: me })).statusCode).toBe(200);
    expect(await t.app.db.select().from(notifications).where(eq(notifications.id, id))).toEqual([]);
  });

  it('ping validates person and church through membership and is rate limited', async () => {
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId);
    let res = await call(t.app, 'POST', '/messaging/notifications/ping', { body: { churchId: church.churchId, personId: randomUUID(), message: 'Hi' } });
    expect(res.statusCode).toBe(404);
    res = await call(t.app, 'POST', '/messaging/notifications/ping', { body: { churchId: randomUUID(), personId: person.id, message: 'Hi' } });
    expect(res.statusCode).toBe(404);
    res = await call(t.app, 'POST', '/messaging/notifications/ping', { body: { churchId: church.churchId, personId: person.id, contentType: 'form', contentId: 'f1', message: 'Form submitted' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0]).toMatchObject({ personId: person.id, message: 'Form submitted' });
    expect((await call(t.app, 'POST', '/messaging/notifications/ping', { body: {} })).statusCode).toBe(400);
    let limited = 0;
    for (let i = 0; i < 12; i++) {
      const r = await call(t.app, 'POST', '/messaging/notifications/ping', { body: { churchId: church.churchId, personId: person.id, message: `n${i}` } });
      if (r.statusCode === 429) limited++;
    }
    expect(limited).toBeGreaterThan(0);
  });

  it('sends a test push to your own devices', async () => {
    const church = makeChurch();
    await t.app.db.insert(devices).values({ id: randomUUID(), churchId: church.churchId, personId: church.personId, appName: 'B1', pushToken: 'ExponentPushToken[test]' });
    const res = await call(t.app, 'POST', '/messaging/notifications/sendTest', { token: church.token(), body: { personId: church.personId, title: 'Test' } });
    expect(res.json()).toEqual({ devices: 1, sent: 1 });
    expect((await call(t.app, 'POST', '/messaging/notifications/sendTest', { token: church.token(), body: { personId: randomUUID(), title: 'Test' } })).statusCode).toBe(401);
  });

  it('runs the daily digest for unread notifications of people who chose daily (tmpEmail triggers it)', async () => {
    const church = makeChurch();
    const daily = t.membership.addPerson(church.churchId);
    const nothing = t.membership.addPerson(church.churchId);
    await call(t.app, 'POST', '/messaging/notificationpreferences', { token: church.token([], { personId: nothing.id }), body: { emailFrequency: 'never' } });
    await t.app.db.insert(notifications).values([
      { id: randomUUID(), churchId: church.churchId, personId: daily.id, message: 'One <b>thing</b>' },
      { id: randomUUID(), churchId: church.churchId, personId: daily.id, message: 'Another' },
      { id: randomUUID(), churchId: church.churchId, personId: nothing.id, message: 'Ignored' },
    ]);
    expect((await call(t.app, 'GET', '/messaging/notifications/tmpEmail')).json()).toEqual({ queued: true });
    await t.drain();
    const mail = readMailbox(t.config).filter((m) => m.to === daily.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toBe('You have 2 unread notifications');
    expect(mail[0]!.html).toContain('One &lt;b&gt;thing&lt;/b&gt;');
    expect(mail[0]!.text).toContain('Another');
    expect(readMailbox(t.config).some((m) => m.to === nothing.email)).toBe(false);
    const left = await t.app.db.select().from(notifications).where(and(eq(notifications.churchId, church.churchId), eq(notifications.personId, daily.id)));
    expect(left.every((n) => n.emailedAt)).toBe(true);
  });

  it('owns notifyPeople: other modules enqueue it, messaging notifies and escalates', async () => {
    const church = makeChurch();
    const a = t.membership.addPerson(church.churchId);
    const b = t.membership.addPerson(church.churchId);
    await t.app.deps.queue.enqueue(notifyPeople, { churchId: church.churchId, personIds: [a.id, b.id], message: 'Volunteer needed', contentType: 'plan', contentId: 'p1', triggeredByPersonId: b.id });
    await t.drain();
    const rows = await t.app.db.select().from(notifications).where(eq(notifications.churchId, church.churchId));
    expect(rows.map((r) => r.personId)).toEqual([a.id]);
    expect(rows[0]).toMatchObject({ message: 'Volunteer needed', contentType: 'plan', contentId: 'p1', triggeredByPersonId: b.id });
  });
});
