import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import twilio from 'twilio';
import { call, fakeServer, type FakeRequest } from '@church/common/testing';
import { consentLogs, deliveryLogs, devices, privateMessages } from '../../src/db/schema';
import { eventually, makeChurch, sleep, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

const t = useMessaging();

/** A person note started by a People.Edit token of the church; answers its conversation. */
async function personNote(church: ReturnType<typeof makeChurch>, comment = 'Visited in hospital') {
  const res = await call(t.app, 'POST', '/messaging/conversations/start', { token: church.token(['People.Edit']), body: { contentType: 'person', contentId: randomUUID(), comment } });
  expect(res.statusCode).toBe(200);
  return res.json() as { id: string };
}

describe('person notes stay gated on the real-time and private-message paths', () => {
  it('refuses to register a socket on, or list the connections of, a person note without the notes permission', async () => {
    const church = makeChurch();
    const note = await personNote(church);
    const s = await openSocket(t.app);
    const body = { churchId: church.churchId, conversationId: note.id, socketId: s.socketId };
    expect((await call(t.app, 'POST', '/messaging/connections', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/connections', { token: church.token(), body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/connections', { token: makeChurch().token(['People.Edit']), body })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/connections/${church.churchId}/${note.id}`)).statusCode).toBe(401);
    // nothing posted to the note reaches the refused socket
    const editor = church.token(['People.Edit']);
    expect((await call(t.app, 'POST', '/messaging/messages/send', { token: editor, body: { churchId: church.churchId, conversationId: note.id, content: 'Diagnosis' } })).statusCode).toBe(200);
    await sleep(150);
    expect(s.received.some((r) => r.action === 'message')).toBe(false);
    // the notes permission of the church opens both
    expect((await call(t.app, 'POST', '/messaging/connections', { token: editor, body })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/connections/${church.churchId}/${note.id}`, { token: editor })).statusCode).toBe(200);
    // keys that are not conversations (alerts, a service) stay open to the public
    expect((await call(t.app, 'POST', '/messaging/connections', { body: { ...body, conversationId: 'alerts' } })).statusCode).toBe(200);
    await s.close();
  });

  it('refuses the current conversation of a person note to a token of another church', async () => {
    const church = makeChurch();
    const sealed = encodeURIComponent(t.app.deps.secrets.encrypt(randomUUID()));
    const path = `/messaging/conversations/current/${church.churchId}/person/${sealed}`;
    expect((await call(t.app, 'GET', path, { token: makeChurch().token(['People.Edit']) })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', path, { token: church.token(['People.Edit']) })).statusCode).toBe(200);
  });

  it('lets a private message take only a privateMessage conversation no other pair holds', async () => {
    const church = makeChurch();
    const note = await personNote(church, 'Confidential remark');
    const stranger = church.token([], { personId: randomUUID() });
    const accomplice = randomUUID();
    let res = await call(t.app, 'POST', '/messaging/privatemessages', { token: stranger, body: { toPersonId: accomplice, conversationId: note.id } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toContain('conversationId');
    expect(await t.app.db.select().from(privateMessages).where(eq(privateMessages.conversationId, note.id))).toHaveLength(0);
    // another pair's conversation is theirs
    const alice = church.token([], { personId: randomUUID() });
    const pair = await call(t.app, 'POST', '/messaging/privatemessages', { token: alice, body: { toPersonId: randomUUID(), content: 'Between us' } });
    expect(pair.statusCode).toBe(200);
    res = await call(t.app, 'POST', '/messaging/privatemessages', { token: stranger, body: { toPersonId: accomplice, conversationId: pair.json()[0].conversationId } });
    expect(res.statusCode).toBe(400);
    // a privateMessage conversation of their own (created first, as legacy clients do) is fine
    const own = await call(t.app, 'POST', '/messaging/conversations', { token: stranger, body: { contentType: 'privateMessage', contentId: randomUUID() } });
    res = await call(t.app, 'POST', '/messaging/privatemessages', { token: stranger, body: { toPersonId: accomplice, conversationId: own.json()[0].id, content: 'Hello' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0].conversationId).toBe(own.json()[0].id);
  });
});

describe('devices', () => {
  it('takes an enrolled push token away from every other device, also when the device is matched by its id', async () => {
    const church = makeChurch();
    const token = church.token();
    const pushToken = `ExponentPushToken[${randomUUID()}]`;
    const tablet = await call(t.app, 'POST', '/messaging/devices/enroll', { token: makeChurch().token(), body: { pushToken, appName: 'B1', deviceId: `tablet-${randomUUID()}` } });
    const phoneId = `phone-${randomUUID()}`;
    const phone = await call(t.app, 'POST', '/messaging/devices/enroll', { token, body: { appName: 'B1', deviceId: phoneId } });
    const again = await call(t.app, 'POST', '/messaging/devices/enroll', { token, body: { pushToken, appName: 'B1', deviceId: phoneId } });
    expect(again.json()).toMatchObject({ id: phone.json().id });
    expect(again.json().pushToken).toBeUndefined(); // a push token never leaves
    const rows = await t.app.db.select().from(devices).where(eq(devices.pushToken, pushToken));
    expect(rows.map((r) => r.id)).toEqual([phone.json().id]);
    expect((await t.app.db.select().from(devices).where(eq(devices.id, tablet.json().id)))[0]!.pushToken).toBeNull();
  });
});

describe('texting and consent', () => {
  const AUTH = 'twilio-auth-token-gaps';
  const numbers = ['+15556100001', '+15556100002'];
  /** the church texting, and its provider's id (the STOP's webhook names it) */
  const sender = { churchId: '', providerId: '' };
  let sid = 0;
  // Twilio on loopback. The first text out: meanwhile the other member answers an earlier text with STOP (Twilio-signed).
  // Two texts a second: the second member's text waits half a second for its slot.
  const app = useMessaging({
    config: { PUBLIC_BASE_URL: 'https://api.church.test', SMS_RATE_PER_SECOND: '2' },
    fakes: async () => {
      const twilioFake = await fakeServer(async (req: FakeRequest) => {
        if (sid++ === 0) {
          const other = numbers.find((n) => n !== req.form.get('To'))!;
          const url = `/messaging/texting/webhooks/${sender.providerId}/inbound`;
          const stop = { MessageSid: `SMstop${randomUUID().slice(0, 8)}`, From: other, To: '+15550000000', Body: 'STOP' };
          const headers = { 'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH, `https://api.church.test${url}`, stop), 'content-type': 'application/x-www-form-urlencoded' };
          expect((await app.app.inject({ method: 'POST', url, payload: new URLSearchParams(stop).toString(), headers })).statusCode).toBe(200);
          await eventually(async () => (await app.app.db.select().from(consentLogs).where(eq(consentLogs.churchId, sender.churchId))).length === 1);
        }
        return { status: 201, body: { sid: `SM${String(sid).padStart(32, '0')}`, status: 'queued' } };
      });
      return { twilioFake, config: { TWILIO_BASE_URL: twilioFake.url }, close: () => twilioFake.close() };
    },
  });

  it('never texts a number whose STOP arrived after the group text was queued', async () => {
    const church = makeChurch();
    sender.churchId = church.churchId;
    const token = church.token(['Texting.Send']);
    const saved = await call(app.app, 'POST', '/messaging/texting/providers', { token, body: { provider: 'twilio', apiKey: 'AC0123456789', apiSecret: AUTH, fromNumber: '+15550000000' } });
    sender.providerId = saved.json()[0].id;
    const groupId = randomUUID();
    const people = numbers.map((mobilePhone) => app.membership.addPerson(church.churchId, { groupIds: [groupId], mobilePhone }));
    const res = await call(app.app, 'POST', '/messaging/texting/send', { token, body: { groupId, message: 'Choir at 6' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ totalMembers: 2, recipientCount: 1, successCount: 1, failCount: 0, optedOutCount: 1 });
    const texted = app.twilioFake.seen.filter((r) => r.path.endsWith('/Messages.json')).map((r) => r.form.get('To'));
    expect(texted).toHaveLength(1);
    const stopped = people.find((p) => p.mobilePhone !== texted[0])!;
    expect(stopped.optedOut).toBe(true);
    const [log] = await app.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.sentTextId, res.json().sentTextId), eq(deliveryLogs.personId, stopped.id)));
    expect(log).toMatchObject({ status: 'optedOut', providerMessageId: null });
  });
});

describe('private conversations', () => {
  /** A church and two of its people, Alice and Bob, with their tokens. */
  const twoPeople = () => {
    const church = makeChurch();
    const aliceId = randomUUID();
    const bobId = randomUUID();
    return { church, aliceId, bobId, alice: church.token([], { personId: aliceId }), bob: church.token([], { personId: bobId }) };
  };

  it('are open to their two people only, on every conversation, message and connection route', async () => {
    const { church, aliceId, bobId, alice, bob } = twoPeople();
    const staff = church.token(['Content.Edit', 'People.Edit', 'People.View'], { personId: randomUUID() });
    const sent = await call(t.app, 'POST', '/messaging/privatemessages', { token: alice, body: { toPersonId: bobId, content: 'Just between us' } });
    expect(sent.statusCode).toBe(200);
    const convId: string = sent.json()[0].conversationId;
    const [msg] = (await call(t.app, 'GET', `/messaging/messages/conversation/${convId}`, { token: bob })).json();
    expect(msg.content).toBe('Just between us');
    const { churchId } = church;
    const reads = [
      `/messaging/conversations/${churchId}/${convId}`,
      `/messaging/messages/catchup/${churchId}/${convId}`,
      `/messaging/messages/${churchId}/${msg.id}`,
      `/messaging/messages/conversation/${convId}`,
    ];
    for (const path of reads) {
      for (const token of [undefined, staff]) expect([path, (await call(t.app, 'GET', path, { token })).statusCode]).toEqual([path, 401]);
      // the same person id under another church's token finds nothing (401, or 404 on the routes of the token's church)
      expect([401, 404]).toContain((await call(t.app, 'GET', path, { token: makeChurch().token([], { personId: aliceId }) })).statusCode);
      expect([path, (await call(t.app, 'GET', path, { token: alice })).statusCode]).toEqual([path, 200]);
    }
    // lists leave it out for others
    const byContent = `/messaging/conversations/${churchId}/privateMessage/${aliceId}`;
    expect((await call(t.app, 'GET', byContent)).json()).toEqual([]);
    expect((await call(t.app, 'GET', byContent, { token: bob })).json().map((c: { id: string }) => c.id)).toEqual([convId]);
    expect((await call(t.app, 'GET', `/messaging/conversations/messages/privateMessage/${aliceId}`, { token: staff })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/messaging/conversations/timeline/ids?ids=${convId}`, { token: staff })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/messaging/conversations/timeline/ids?ids=${convId}`, { token: alice })).json()).toHaveLength(1);
    // nobody else posts in it, listens to it or changes it
    expect((await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId, conversationId: convId, displayName: 'Eve', content: 'hi' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/messages/send', { token: staff, body: [{ churchId, conversationId: convId, content: 'a' }, { churchId, conversationId: convId, content: 'b' }] })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/messages', { token: staff, body: { conversationId: convId, content: 'hi' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/conversations', { token: staff, body: { id: convId, contentType: 'privateMessage', contentId: aliceId, title: 'Mine now' } })).statusCode).toBe(401);
    const s = await openSocket(t.app);
    expect((await call(t.app, 'POST', '/messaging/connections', { body: { churchId, conversationId: convId, socketId: s.socketId } })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/messaging/connections/${churchId}/${convId}`)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/connections', { token: bob, body: { churchId, conversationId: convId, socketId: s.socketId } })).statusCode).toBe(200);
    // its two people post through send (one or several) and the socket hears it
    const reply = await call(t.app, 'POST', '/messaging/messages/send', { token: bob, body: { churchId, conversationId: convId, content: 'Sure' } });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()[0]).toMatchObject({ personId: bobId, content: 'Sure' });
    await s.waitFor('message', (r) => (r.data as { content: string }).content === 'Sure');
    expect((await call(t.app, 'POST', '/messaging/messages/send', { token: alice, body: [{ churchId, conversationId: convId, content: 'x' }, { churchId, conversationId: convId, content: 'y' }] })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${convId}`, { token: alice })).json().map((m: { content: string }) => m.content)).toEqual(['Just between us', 'Sure', 'x', 'y']);
    await s.close();
  });

  it('stay open until their pair is saved: a client may create the conversation and post in it first', async () => {
    const { church, aliceId, bobId, alice, bob } = twoPeople();
    const stranger = church.token([], { personId: randomUUID() });
    const conv = await call(t.app, 'POST', '/messaging/conversations', { token: alice, body: { contentType: 'privateMessage', contentId: aliceId, title: 'To Bob', visibility: 'hidden' } });
    expect(conv.statusCode).toBe(200);
    const convId: string = conv.json()[0].id;
    expect((await call(t.app, 'POST', '/messaging/messages', { token: alice, body: { conversationId: convId, content: 'First' } })).statusCode).toBe(200);
    const paired = await call(t.app, 'POST', '/messaging/privatemessages', { token: alice, body: { toPersonId: bobId, conversationId: convId } });
    expect(paired.statusCode).toBe(200);
    // paired now: its two people read it, nobody else does
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${convId}`, { token: bob })).json().map((m: { content: string }) => m.content)).toEqual(['First']);
    expect((await call(t.app, 'GET', `/messaging/messages/conversation/${convId}`, { token: stranger })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/messages/send', { token: stranger, body: { churchId: church.churchId, conversationId: convId, content: 'hi' } })).statusCode).toBe(401);
  });
});
