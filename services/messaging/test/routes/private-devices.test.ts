import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { devices, notifications } from '../../src/db/schema';
import { PAIRING_ALPHABET } from '../../src/domain/pairing';
import { makeChurch, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

const t = useMessaging();

describe('private messages', () => {
  it('sends, reuses the pair conversation, notifies the recipient, and marks read', async () => {
    const church = makeChurch();
    const alice = church.token([], { personId: randomUUID(), firstName: 'Alice', lastName: 'A' } as never);
    const bobId = randomUUID();
    const bob = church.token([], { personId: bobId });
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { token: bob, body: { churchId: church.churchId, conversationId: 'alerts', socketId: socket.socketId, personId: bobId } });
    const sent = await call(t.app, 'POST', '/messaging/privatemessages', { token: alice, body: { toPersonId: bobId, content: 'Hi Bob' } });
    expect(sent.statusCode).toBe(200);
    const pm = sent.json()[0];
    expect(pm).toMatchObject({ toPersonId: bobId, notifyPersonId: bobId });
    expect(pm.conversation.messages[0].content).toBe('Hi Bob');
    expect((await socket.waitFor('privateMessage')).data).toMatchObject({ id: pm.id });
    await t.drain();
    const notes = await t.app.db.select().from(notifications).where(eq(notifications.personId, bobId));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ contentType: 'privateMessage', contentId: pm.conversationId, isNew: true });
    // a reply reuses the conversation
    const reply = await call(t.app, 'POST', '/messaging/privatemessages', { token: bob, body: [{ toPersonId: pm.fromPersonId, content: 'Hi Alice' }] });
    expect(reply.json()[0].id).toBe(pm.id);
    expect(reply.json()[0].conversation.messages[0].content).toBe('Hi Alice');
    expect((await call(t.app, 'GET', `/messaging/privatemessages/existing/${bobId}`, { token: alice })).json().id).toBe(pm.id);
    expect((await call(t.app, 'GET', `/messaging/privatemessages/existing/${randomUUID()}`, { token: alice })).json()).toEqual({});
    // by id: clears the notification when addressed to the caller
    await call(t.app, 'POST', '/messaging/privatemessages', { token: alice, body: { toPersonId: bobId, content: 'Again' } });
    const byId = await call(t.app, 'GET', `/messaging/privatemessages/${pm.id}`, { token: bob });
    expect(byId.json().notifyPersonId).toBeNull();
    expect((await t.app.db.select().from(notifications).where(eq(notifications.personId, bobId))).every((n) => !n.isNew)).toBe(true);
    // strangers and other churches see nothing
    expect((await call(t.app, 'GET', `/messaging/privatemessages/${pm.id}`, { token: church.token([], { personId: randomUUID() }) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/messaging/privatemessages', { token: makeChurch().token() })).json()).toEqual([]);
    const list = await call(t.app, 'GET', '/messaging/privatemessages', { token: alice });
    expect(list.json()).toHaveLength(1);
    expect((await call(t.app, 'POST', '/messaging/privatemessages', { token: alice, body: { content: 'x' } })).statusCode).toBe(400);
    await socket.close();
  });
});

describe('devices and device contents', () => {
  it('enrolls anonymously with a pairing code, pairs with content, and reports status', async () => {
    const church = makeChurch();
    const anon = await call(t.app, 'POST', '/messaging/devices/enrollAnon', { body: { appName: 'B1TV', deviceId: 'tv-1' } });
    expect(anon.statusCode).toBe(200);
    const code: string = anon.json().pairingCode;
    expect(code).toHaveLength(4);
    for (const ch of code) expect(PAIRING_ALPHABET).toContain(ch);
    expect((await call(t.app, 'GET', `/messaging/devices/status/${anon.json().id}`)).json()).toEqual({ paired: false, contentType: null, contentId: null });
    const token = church.token(['Content.Edit']);
    const paired = await call(t.app, 'GET', `/messaging/devices/pair/${code.toLowerCase()}?contentType=sermonPlaylist&contentId=p1`, { token });
    expect(paired.statusCode).toBe(200);
    // B1Admin:src/profile/components/PairScreen.tsx reads `success`
    expect(paired.json()).toMatchObject({ success: true, churchId: church.churchId, paired: true, pairingCode: null });
    expect((await call(t.app, 'GET', `/messaging/devices/status/tv-1`)).json()).toEqual({ paired: true, contentType: 'sermonPlaylist', contentId: 'p1' });
    // a spent code is answered as the pairing screen shows it ("invalid code"), not as an error
    const spent = await call(t.app, 'GET', `/messaging/devices/pair/${code}`, { token });
    expect([spent.statusCode, spent.json()]).toEqual([200, { success: false }]);
    const id = paired.json().id;
    expect((await call(t.app, 'GET', `/messaging/devicecontents/deviceId/${id}`, { token })).json()).toHaveLength(1);
    const saved = await call(t.app, 'POST', '/messaging/devicecontents', { token, body: [{ deviceId: id, contentType: 'stream', contentId: 's1' }] });
    expect(saved.statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/messaging/devicecontents', { token: makeChurch().token('all'), body: [{ deviceId: id, contentType: 'stream', contentId: 's1' }] })).statusCode).toBe(400);
    expect((await call(t.app, 'DELETE', `/messaging/devicecontents/${saved.json()[0].id}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/devices/${church.churchId}`, { token })).json().map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await call(t.app, 'GET', `/messaging/devices/${church.churchId}/${id}`, { token })).json().id).toBe(id);
    expect((await call(t.app, 'DELETE', `/messaging/devices/${church.churchId}/${id}`, { token: church.token([], { personId: randomUUID() }) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/messaging/devices/${church.churchId}/${id}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/devices/status/${id}`)).statusCode).toBe(404);
  });

  it('enrolls a person device, matching by push token or device id', async () => {
    const church = makeChurch();
    const token = church.token();
    const first = await call(t.app, 'POST', '/messaging/devices/enroll', { token, body: { pushToken: 'ExponentPushToken[x1]', appName: 'B1', deviceId: 'phone-1', label: 'Phone' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ personId: church.personId, churchId: church.churchId });
    const again = await call(t.app, 'POST', '/messaging/devices/enroll', { token, body: { pushToken: 'ExponentPushToken[x2]', appName: 'B1', deviceId: 'phone-1' } });
    expect(again.json()).toMatchObject({ id: first.json().id });
    expect((await t.app.db.select().from(devices).where(eq(devices.id, first.json().id)))[0]!.pushToken).toBe('ExponentPushToken[x2]');
    const byToken = await call(t.app, 'POST', '/messaging/devices/enroll', { token, body: { pushToken: 'ExponentPushToken[x2]', appName: 'B1', label: 'Renamed' } });
    expect(byToken.json()).toMatchObject({ id: first.json().id, label: 'Renamed' });
    expect((await call(t.app, 'GET', `/messaging/devices/${church.churchId}/person/${church.personId}`, { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/messaging/devices/${church.churchId}/person/${randomUUID()}`, { token })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/devices/enroll', { token, body: {} })).statusCode).toBe(400);
    // the public batch save: a device updates its own fields by id, never its church or person
    const pub = await call(t.app, 'POST', '/messaging/devices', { body: [{ id: first.json().id, label: 'From device', churchId: randomUUID() }] });
    expect(pub.statusCode).toBe(200);
    expect(pub.json()[0]).toMatchObject({ label: 'From device', churchId: church.churchId, personId: church.personId });
    const created = await call(t.app, 'POST', '/messaging/devices', { body: { appName: 'Kiosk' } });
    expect(created.json()[0]).toMatchObject({ churchId: null, personId: null });
    const empty = await call(t.app, 'POST', '/messaging/devices', { body: {} });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors[0].param).toBe('appName');
  });
});
