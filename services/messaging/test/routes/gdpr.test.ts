import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, signedCall } from '@church/common/testing';
import {
  consentLogs,
  conversations,
  deliveryLogs,
  deviceContents,
  devices,
  messageReactions,
  messages,
  notificationPreferences,
  notifications,
  privateMessages,
  sentTexts,
  webPushSubscriptions,
} from '../../src/db/schema';
import { makeChurch, useMessaging } from '../setup';

const t = useMessaging();

/** A call signed as membership's internal client signs it. */
const signed = (url: string, body: unknown, secret?: string) => signedCall(t.app, url, body, secret);

const EXPORT = '/messaging/internal/gdpr/export';
const ANONYMIZE = '/messaging/internal/gdpr/anonymize';

/** A person's records of every kind messaging keeps, beside another person's of the same church. */
async function seed(churchId: string, personId: string, otherId: string) {
  const db = t.app.db;
  const ids = { group: randomUUID(), note: randomUUID(), secret: randomUUID(), pm: randomUUID(), aboutOther: randomUUID(), mine: randomUUID(), theirs: randomUUID(), device: randomUUID() };
  await db.insert(conversations).values([
    { id: ids.group, churchId, contentType: 'group', contentId: randomUUID(), postCount: 2 },
    { id: ids.note, churchId, contentType: 'person', contentId: personId, postCount: 1 },
    { id: ids.secret, churchId, contentType: 'personConfidential', contentId: personId, postCount: 1 },
    { id: ids.pm, churchId, contentType: 'privateMessage', contentId: randomUUID() },
    { id: ids.aboutOther, churchId, contentType: 'person', contentId: otherId, postCount: 1 },
  ]);
  await db.insert(messages).values([
    { id: ids.mine, churchId, conversationId: ids.group, personId, displayName: 'Pat Smith', content: 'Hello from Pat', timeSent: new Date('2024-01-01T10:00:00Z') },
    { id: ids.theirs, churchId, conversationId: ids.group, personId: otherId, displayName: 'Sam', content: 'Hi Pat', timeSent: new Date('2024-01-01T10:01:00Z') },
    { id: randomUUID(), churchId, conversationId: ids.note, personId: otherId, displayName: 'Staff', content: 'Pat asked about baptism', timeSent: new Date('2024-01-02T10:00:00Z') },
    { id: randomUUID(), churchId, conversationId: ids.secret, personId: otherId, displayName: 'Staff', content: 'Pastoral matter', timeSent: new Date('2024-01-03T10:00:00Z') },
    // a note Pat wrote about Sam: Sam's record, not Pat's
    { id: randomUUID(), churchId, conversationId: ids.aboutOther, personId, displayName: 'Pat Smith', content: 'Sam moved away', timeSent: new Date('2024-01-04T10:00:00Z') },
  ]);
  await db.insert(messageReactions).values({ id: randomUUID(), churchId, messageId: ids.theirs, conversationId: ids.group, personId, emoji: '👍' });
  await db.insert(privateMessages).values({ id: randomUUID(), churchId, conversationId: ids.pm, fromPersonId: personId, toPersonId: otherId });
  await db.insert(notifications).values([
    { id: randomUUID(), churchId, personId, message: 'A task for you', link: '/tasks/1', contentType: 'task', contentId: 't1' },
    { id: randomUUID(), churchId, personId: otherId, message: 'Pat Smith: are you coming?', triggeredByPersonId: personId },
  ]);
  await db.insert(notificationPreferences).values({ id: randomUUID(), churchId, personId, timeZone: 'Europe/Paris', quietHoursStart: '22:00', quietHoursEnd: '07:00' });
  await db.insert(devices).values({ id: ids.device, churchId, personId, appName: 'B1Mobile', label: "Pat's phone", pushToken: 'ExponentPushToken[secret]', deviceInfo: 'iPhone' });
  await db.insert(deviceContents).values({ id: randomUUID(), churchId, deviceId: ids.device, contentType: 'sermon', contentId: 's1' });
  await db.insert(webPushSubscriptions).values({ id: randomUUID(), churchId, personId, endpoint: `https://fcm.googleapis.com/fcm/send/${randomUUID()}`, p256dh: 'p256dh-key', auth: 'auth-secret', appName: 'B1AppPwa' });
  await db.insert(deliveryLogs).values({ id: randomUUID(), churchId, personId, channel: 'email', recipient: 'pat@example.test', provider: 'mail queue', status: 'failed', error: 'bounced: pat@example.test' });
  await db.insert(sentTexts).values({ id: randomUUID(), churchId, recipientPersonId: personId, message: 'Hi Pat, see you Sunday', recipientCount: 1, successCount: 1 });
  await db.insert(consentLogs).values([
    { id: randomUUID(), churchId, phone: '+15551230000', keyword: 'STOP', action: 'optOut', personIds: [personId] },
    { id: randomUUID(), churchId, phone: '+15559990000', keyword: 'STOP', action: 'optOut', personIds: [personId, otherId] },
  ]);
  return ids;
}

describe('POST /messaging/internal/gdpr/export', () => {
  it('is served only to signed internal calls, and validates its body', async () => {
    const c = makeChurch();
    const body = { churchId: c.churchId, personId: c.personId };
    for (const url of [EXPORT, ANONYMIZE]) {
      expect((await call(t.app, 'POST', url, { body })).statusCode).toBe(401);
      expect((await call(t.app, 'POST', url, { body, token: c.token('all', { serverAdmin: true }) })).statusCode).toBe(401);
      expect((await signed(url, body, 'another-secret-another-secret-another')).statusCode).toBe(401);
      const bad = await signed(url, { churchId: c.churchId, personId: 'nope' });
      expect([bad.statusCode, bad.json().errors[0].param]).toEqual([400, 'personId']);
    }
  });

  it('answers the person\'s records of every kind, without device or browser secrets, and nothing of another church', async () => {
    const c = makeChurch();
    const other = randomUUID();
    const ids = await seed(c.churchId, c.personId, other);
    // the same person id in another church: none of it is theirs here
    await seed(makeChurch().churchId, c.personId, randomUUID());
    const res = await signed(EXPORT, { churchId: c.churchId, personId: c.personId });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(Object.keys(data).sort()).toEqual(['consentLogs', 'deliveryLogs', 'devices', 'messages', 'notes', 'notificationPreferences', 'notifications', 'privateMessages', 'reactions', 'sentTexts', 'webPushSubscriptions']);
    expect(data.messages).toEqual([expect.objectContaining({ id: ids.mine, conversationId: ids.group, contentType: 'group', displayName: 'Pat Smith', content: 'Hello from Pat', timeSent: '2024-01-01T10:00:00.000Z' })]);
    expect(data.notes.map((n: { content: string }) => n.content)).toEqual(['Pat asked about baptism']);
    expect(data.reactions).toEqual([expect.objectContaining({ messageId: ids.theirs, emoji: '👍' })]);
    expect(data.privateMessages).toEqual([expect.objectContaining({ conversationId: ids.pm, fromPersonId: c.personId, toPersonId: other })]);
    expect(data.notifications.map((n: { message: string }) => n.message)).toEqual(['A task for you']);
    expect(data.notificationPreferences).toEqual([expect.objectContaining({ personId: c.personId, timeZone: 'Europe/Paris' })]);
    expect(data.devices).toEqual([expect.objectContaining({ id: ids.device, label: "Pat's phone", deviceInfo: 'iPhone' })]);
    expect(data.webPushSubscriptions).toEqual([expect.objectContaining({ appName: 'B1AppPwa', pushService: 'https://fcm.googleapis.com' })]);
    expect(data.deliveryLogs).toEqual([expect.objectContaining({ channel: 'email', recipient: 'pat@example.test' })]);
    expect(data.sentTexts).toEqual([expect.objectContaining({ message: 'Hi Pat, see you Sunday' })]);
    expect(data.consentLogs.map((l: { phone: string }) => l.phone).sort()).toEqual(['+15551230000', '+15559990000']);
    const text = res.body;
    for (const secret of ['ExponentPushToken[secret]', 'p256dh-key', 'auth-secret', '/fcm/send/', 'Pastoral matter', 'Sam moved away']) expect([secret, text.includes(secret)]).toEqual([secret, false]);
    expect(data.devices[0]).not.toHaveProperty('pushToken');
    expect(data.devices[0]).not.toHaveProperty('pairingCode');
  });

  it('answers empty lists for someone messaging knows nothing of', async () => {
    const c = makeChurch();
    const res = await signed(EXPORT, { churchId: c.churchId, personId: c.personId });
    expect(Object.values(res.json().data).every((rows) => Array.isArray(rows) && rows.length === 0)).toBe(true);
  });
});

describe('POST /messaging/internal/gdpr/anonymize', () => {
  it('erases what identifies the person, keeps counts and dates, touches no one else, and changes nothing the second time', async () => {
    const c = makeChurch();
    const other = randomUUID();
    const ids = await seed(c.churchId, c.personId, other);
    const elsewhere = makeChurch();
    await seed(elsewhere.churchId, c.personId, randomUUID());

    const first = await signed(ANONYMIZE, { churchId: c.churchId, personId: c.personId });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      changed: { messages: 1, notes: 2, notesWritten: 1, notifications: 1, notificationsTriggered: 1, notificationPreferences: 1, devices: 1, webPushSubscriptions: 1, deliveryLogs: 1, sentTexts: 1, consentLogs: 2 },
    });

    const db = t.app.db;
    const msgs = await db.select().from(messages).where(eq(messages.churchId, c.churchId));
    expect(msgs.map((m) => [m.personId === c.personId ? 'pat' : 'other', m.displayName, m.content, m.timeSent.toISOString()]).sort()).toEqual([
      ['other', 'Sam', 'Hi Pat', '2024-01-01T10:01:00.000Z'],
      ['other', 'Staff', '', '2024-01-02T10:00:00.000Z'],
      ['other', 'Staff', '', '2024-01-03T10:00:00.000Z'],
      ['pat', null, '', '2024-01-01T10:00:00.000Z'],
      ['pat', null, 'Sam moved away', '2024-01-04T10:00:00.000Z'],
    ]);
    const [group] = await db.select().from(conversations).where(eq(conversations.id, ids.group));
    expect(group!.postCount).toBe(2);
    expect((await db.select().from(notifications).where(eq(notifications.churchId, c.churchId))).map((n) => [n.personId === c.personId, n.message, n.link]).sort()).toEqual([
      [false, '', null],
      [true, '', null],
    ]);
    expect(await db.select().from(notificationPreferences).where(eq(notificationPreferences.churchId, c.churchId))).toEqual([]);
    expect(await db.select().from(devices).where(eq(devices.churchId, c.churchId))).toEqual([]);
    expect(await db.select().from(deviceContents).where(eq(deviceContents.churchId, c.churchId))).toEqual([]);
    expect(await db.select().from(webPushSubscriptions).where(eq(webPushSubscriptions.churchId, c.churchId))).toEqual([]);
    expect((await db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, c.churchId))).map((l) => [l.channel, l.status, l.recipient, l.error])).toEqual([['email', 'failed', null, null]]);
    expect((await db.select().from(sentTexts).where(eq(sentTexts.churchId, c.churchId))).map((s) => [s.message, s.recipientCount, s.successCount])).toEqual([['', 1, 1]]);
    expect((await db.select().from(consentLogs).where(eq(consentLogs.churchId, c.churchId))).map((l) => [l.phone, l.personIds]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['', []],
      ['+15559990000', [other]],
    ]);
    // the reaction and the private pair are ids only: they stay, so counts and the other person's inbox hold
    expect(await db.select().from(messageReactions).where(eq(messageReactions.churchId, c.churchId))).toHaveLength(1);
    expect(await db.select().from(privateMessages).where(eq(privateMessages.churchId, c.churchId))).toHaveLength(1);

    // another church's records of the same person id are untouched
    const theirs = await db.select().from(messages).where(and(eq(messages.churchId, elsewhere.churchId), eq(messages.personId, c.personId)));
    expect(theirs.map((m) => [m.content, m.displayName]).sort()).toEqual([
      ['Hello from Pat', 'Pat Smith'],
      ['Sam moved away', 'Pat Smith'],
    ]);
    expect(await db.select().from(devices).where(eq(devices.churchId, elsewhere.churchId))).toHaveLength(1);

    const again = await signed(ANONYMIZE, { churchId: c.churchId, personId: c.personId });
    expect(Object.values(again.json().changed).every((n) => n === 0)).toBe(true);
  });
});
