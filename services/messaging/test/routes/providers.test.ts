import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import twilio from 'twilio';
import { DELIVERY_RETRIES } from '@church/common';
import { call, fakeServer, readMailbox, readOutbox, type FakeAnswer, type FakeRequest } from '@church/common/testing';
import { consentLogs, deliveryLogs, devices, textingProviders } from '../../src/db/schema';
import { mergeFields } from '../../src/domain/merge';
import { makeChurch, useMessaging } from '../setup';

const AUTH_TOKEN = 'twilio-auth-token-secret';
/** per-test behaviour of the fake providers */
let twilioAnswer: (req: FakeRequest) => FakeAnswer;
let sendgridAnswer: (req: FakeRequest) => FakeAnswer;
let balanceAnswer: (req: FakeRequest) => FakeAnswer;
let smsCount = 0;

const okTwilio = (req: FakeRequest): FakeAnswer => ({ status: 201, body: { sid: `SM${String(++smsCount).padStart(32, '0')}`, status: 'queued', to: req.form.get('To'), from: req.form.get('From'), body: req.form.get('Body') } });

/** Expo, FCM, Twilio and SendGrid on one loopback server, started before the app (`t.fake`). */
async function fakeProviders() {
  const fake = await fakeServer((req) => {
    if (req.path === '/--/api/v2/push/send') {
      const msgs = req.json as Array<{ to: string }>;
      return { body: { data: msgs.map((m, i) => (m.to.includes('dead') ? { status: 'error', message: 'not registered', details: { error: 'DeviceNotRegistered' } } : { status: 'ok', id: `ticket-${i}` })) } };
    }
    if (req.path === '/v1/projects/proj/messages:send') {
      const token = (req.json as { message: { token: string } }).message.token;
      if (token === 'fcm-dead') return { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.', details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }] } } };
      return { body: { name: 'projects/proj/messages/0:123' } };
    }
    if (/^\/2010-04-01\/Accounts\/[^/]+\/Messages\.json$/.test(req.path)) return twilioAnswer(req);
    if (/^\/2010-04-01\/Accounts\/[^/]+\/Balance\.json$/.test(req.path)) return balanceAnswer(req);
    if (req.path === '/v3/mail/send') return sendgridAnswer(req);
    return { status: 404, body: { error: 'unknown' } };
  });
  return {
    fake,
    config: {
      EXPO_BASE_URL: fake.url,
      FCM_BASE_URL: fake.url,
      FCM_PROJECT_ID: 'proj',
      FCM_ACCESS_TOKEN: 'fcm-token',
      TWILIO_BASE_URL: fake.url,
      SENDGRID_API_KEY: 'SG.test-key',
      SENDGRID_BASE_URL: fake.url,
      PUBLIC_BASE_URL: 'https://api.church.test',
    },
    close: () => fake.close(),
  };
}
const t = useMessaging({ fakes: fakeProviders });
beforeEach(() => {
  twilioAnswer = okTwilio;
  sendgridAnswer = () => ({ status: 202 });
  balanceAnswer = (req) => ({ body: { account_sid: req.path.split('/')[3], balance: '12.34', currency: 'USD' } });
});

async function addProvider(church: ReturnType<typeof makeChurch>) {
  const res = await call(t.app, 'POST', '/messaging/texting/providers', { token: church.token(['Texting.Send']), body: { provider: 'twilio', name: 'Main', apiKey: 'AC0123456789', apiSecret: AUTH_TOKEN, fromNumber: '+15550000000' } });
  expect(res.statusCode).toBe(200);
  return res.json()[0] as { id: string; apiKey: string; apiSecret: string };
}

/** What messaging reported to membership's audit log for a church and kind of record (the test app hands the job off). */
function reported(churchId: string, entityType: string) {
  return t.app.deps.queue.handedOff
    .filter((j) => j.name === 'membership.changes')
    .flatMap((j) => (j.data as { records: Array<{ churchId: string; entityType: string; action: string; changes?: Record<string, unknown> }> }).records)
    .filter((r) => r.churchId === churchId && r.entityType === entityType);
}

function signed(url: string, params: Record<string, string>) {
  return { 'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params), 'content-type': 'application/x-www-form-urlencoded' };
}

describe('push through the real SDKs against loopback fakes', () => {
  it('sends Expo and FCM pushes and forgets tokens reported unregistered', async () => {
    const church = makeChurch();
    const ids = { expo: randomUUID(), expoDead: randomUUID(), fcm: randomUUID(), fcmDead: randomUUID() };
    await t.app.db.insert(devices).values([
      { id: ids.expo, churchId: church.churchId, personId: church.personId, pushToken: 'ExponentPushToken[live]' },
      { id: ids.expoDead, churchId: church.churchId, personId: church.personId, pushToken: 'ExponentPushToken[dead]' },
      { id: ids.fcm, churchId: church.churchId, personId: church.personId, pushToken: 'fcm-live' },
      { id: ids.fcmDead, churchId: church.churchId, personId: church.personId, pushToken: 'fcm-dead' },
    ]);
    const res = await call(t.app, 'POST', '/messaging/notifications/sendTest', { token: church.token(), body: { personId: church.personId, title: 'Hello' } });
    expect(res.json()).toEqual({ devices: 4, sent: 2 });
    const expoCall = t.fake.seen.find((r) => r.path === '/--/api/v2/push/send')!;
    expect(expoCall.json).toEqual(expect.arrayContaining([expect.objectContaining({ to: 'ExponentPushToken[live]', title: 'Hello' })]));
    const fcmCall = t.fake.seen.find((r) => r.path === '/v1/projects/proj/messages:send')!;
    expect(fcmCall.headers.authorization).toBe('Bearer fcm-token');
    // sent by firebase-admin's messaging client itself
    expect(fcmCall.headers['x-firebase-client']).toMatch(/^fire-admin-node\//);
    expect(fcmCall.json).toEqual({ message: expect.objectContaining({ token: 'fcm-live', notification: { title: 'Hello', body: 'This is a test notification.' } }) });
    const left = await t.app.db.select().from(devices).where(eq(devices.churchId, church.churchId));
    expect(Object.fromEntries(left.map((d) => [d.id, d.pushToken]))).toEqual({ [ids.expo]: 'ExponentPushToken[live]', [ids.expoDead]: null, [ids.fcm]: 'fcm-live', [ids.fcmDead]: null });
    const logs = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, church.churchId));
    expect(logs.map((l) => `${l.provider}:${l.status}`).sort()).toEqual(['expo:sent', 'expo:unregistered', 'fcm:sent', 'fcm:unregistered']);
    expect(logs.find((l) => l.provider === 'fcm' && l.status === 'sent')!.providerMessageId).toBe('projects/proj/messages/0:123');
    expect(await readOutbox(t.config.DATA_DIR, 'push')).toEqual([]);
  });
});

describe('texting through the Twilio SDK against a loopback fake', () => {
  it('saves providers encrypted and reads them masked', async () => {
    const church = makeChurch();
    const saved = await addProvider(church);
    expect(saved.apiSecret).toBe('••••••••');
    expect(saved.apiKey).toBe('••••••••6789');
    const [row] = await t.app.db.select().from(textingProviders).where(eq(textingProviders.id, saved.id));
    expect(row!.apiSecret).not.toContain(AUTH_TOKEN);
    expect(t.app.deps.secrets.decrypt(row!.apiSecret!)).toBe(AUTH_TOKEN);
    // the masked value sent back keeps the stored secret
    await call(t.app, 'POST', '/messaging/texting/providers', { token: church.token(['Texting.Send']), body: { id: saved.id, apiSecret: saved.apiSecret, name: 'Renamed' } });
    const [after] = await t.app.db.select().from(textingProviders).where(eq(textingProviders.id, saved.id));
    expect(t.app.deps.secrets.decrypt(after!.apiSecret!)).toBe(AUTH_TOKEN);
    expect((await call(t.app, 'GET', '/messaging/texting/providers', { token: church.token(['Texting.Send']) })).json()[0]).toMatchObject({ name: 'Renamed', apiSecret: '••••••••' });
    expect((await call(t.app, 'POST', '/messaging/texting/providers', { token: church.token(['Texting.Send']), body: { provider: 'twilio' } })).statusCode).toBe(400);
    expect((await call(t.app, 'DELETE', `/messaging/texting/providers/${saved.id}`, { token: makeChurch().token(['Texting.Send']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/messaging/texting/providers/${saved.id}`, { token: church.token(['Texting.Send']) })).statusCode).toBe(200);
    // the texting settings' changes are in the audit log, field by field, without the credentials
    await t.drain();
    const changes = reported(church.churchId, 'textingProvider');
    expect(changes.map((c) => c.action).sort()).toEqual(['created', 'destroyed', 'updated']);
    expect(changes.find((c) => c.action === 'updated')!.changes).toEqual({ name: { before: 'Main', after: 'Renamed' } });
    expect(JSON.stringify(changes)).not.toMatch(/AC0123456789|twilio-auth-token|apiSecret|apiKey/);
  });

  it('previews and texts every eligible member of a group once, never the opted out, and records each recipient', async () => {
    const church = makeChurch();
    await addProvider(church);
    const groupId = randomUUID();
    const m = t.membership;
    const ok1 = m.addPerson(church.churchId, { groupIds: [groupId], mobilePhone: '(555) 201-0001' });
    const ok2 = m.addPerson(church.churchId, { groupIds: [groupId], mobilePhone: '+1 555 201 0002' });
    m.addPerson(church.churchId, { groupIds: [groupId], mobilePhone: '5552010001' }); // same number as ok1
    m.addPerson(church.churchId, { groupIds: [groupId], optedOut: true });
    m.addPerson(church.churchId, { groupIds: [groupId], mobilePhone: null });
    const bad = m.addPerson(church.churchId, { groupIds: [groupId], mobilePhone: '+15552010009' });
    const token = church.token(['Texting.Send']);
    const preview = await call(t.app, 'GET', `/messaging/texting/preview/${groupId}`, { token });
    expect(preview.json()).toEqual({ totalMembers: 6, eligibleCount: 3, optedOutCount: 1, noPhoneCount: 1 });
    twilioAnswer = (req) => (req.form.get('To') === '+15552010009' ? { status: 400, body: { code: 21211, message: "The 'To' number is not valid.", status: 400 } } : okTwilio(req));
    const res = await call(t.app, 'POST', '/messaging/texting/send', { token, body: { groupId, message: 'Meeting moved to 7pm' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ totalMembers: 6, recipientCount: 3, successCount: 2, failCount: 1, optedOutCount: 1, noPhoneCount: 1 });
    const sentTo = t.fake.seen.filter((r) => r.path.endsWith('/Messages.json') && r.form.get('Body') === 'Meeting moved to 7pm');
    expect(sentTo.map((r) => r.form.get('To')).sort()).toEqual(['+15552010001', '+15552010002', '+15552010009']);
    expect(sentTo[0]!.form.get('From')).toBe('+15550000000');
    expect(sentTo[0]!.form.get('StatusCallback')).toMatch(/^https:\/\/api\.church\.test\/messaging\/texting\/webhooks\/.+\/status$/);
    expect(sentTo[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`AC0123456789:${AUTH_TOKEN}`).toString('base64')}`);
    const details = await call(t.app, 'GET', `/messaging/texting/sent/${res.json().sentTextId}/details`, { token });
    expect(details.json().logs.map((l: { personId: string; status: string }) => `${l.personId === bad.id ? 'bad' : 'ok'}:${l.status}`).sort()).toEqual(['bad:failed', 'ok:sent', 'ok:sent']);
    expect(details.json().logs.find((l: { personId: string }) => l.personId === bad.id).error).toContain('not valid');
    expect((await call(t.app, 'GET', '/messaging/texting/sent', { token })).json()).toHaveLength(1);
    expect([ok1.id, ok2.id]).toContain(details.json().logs.find((l: { status: string }) => l.status === 'sent').personId);
    expect((await call(t.app, 'POST', '/messaging/texting/send', { token: church.token(), body: { groupId, message: 'x' } })).statusCode).toBe(401);
  });

  it('retries a transient failure and texts one person', async () => {
    const church = makeChurch();
    await addProvider(church);
    const person = t.membership.addPerson(church.churchId, { mobilePhone: '+15553000001' });
    let calls = 0;
    twilioAnswer = (req) => (++calls === 1 ? { status: 503, body: { code: 20503, message: 'Service unavailable', status: 503 } } : okTwilio(req));
    const res = await call(t.app, 'POST', '/messaging/texting/sendPerson', { token: church.token(['Texting.Send']), body: { personId: person.id, message: 'Hi' } });
    expect(res.json()).toMatchObject({ recipientCount: 1, successCount: 1, failCount: 0 });
    expect(calls).toBe(2);
    const opted = t.membership.addPerson(church.churchId, { optedOut: true });
    expect((await call(t.app, 'POST', '/messaging/texting/sendPerson', { token: church.token(['Texting.Send']), body: { personId: opted.id, message: 'Hi' } })).statusCode).toBe(400);
  });

  it('B1Admin:src/settings/components/TextingSettingsEdit.tsx reads the balance Twilio reports, or a 400 naming what is missing', async () => {
    const church = makeChurch();
    const token = church.token(['Texting.Send']);
    let res = await call(t.app, 'GET', '/messaging/texting/credits', { token });
    expect([res.statusCode, res.json().errors[0].param]).toEqual([400, 'provider']);
    expect(res.json().errors[0].msg).toMatch(/No texting provider is configured/);
    // the apps' other providers are refused by name: this server sends through Twilio
    res = await call(t.app, 'POST', '/messaging/texting/providers', { token, body: [{ churchId: church.churchId, provider: 'Clearstream', apiKey: 'k', enabled: true }] });
    expect([res.statusCode, res.json().errors[0].param]).toEqual([400, 'provider']);
    expect(res.json().errors[0].msg).toMatch(/Clearstream is not a texting provider this server sends through/);
    await addProvider(church);
    res = await call(t.app, 'GET', '/messaging/texting/credits', { token });
    expect([res.statusCode, res.json()]).toEqual([200, { configured: true, supported: true, provider: 'twilio', hasCredits: true, balance: '12.34', currency: 'USD' }]);
    const asked = t.fake.seen.filter((r) => r.path === '/2010-04-01/Accounts/AC0123456789/Balance.json');
    expect(asked.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from(`AC0123456789:${AUTH_TOKEN}`).toString('base64')}`);
    balanceAnswer = () => ({ body: { account_sid: 'AC0123456789', balance: '-0.50', currency: 'USD' } });
    expect((await call(t.app, 'GET', '/messaging/texting/credits', { token })).json()).toMatchObject({ hasCredits: false, balance: '-0.50' });
    balanceAnswer = () => ({ status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } });
    res = await call(t.app, 'GET', '/messaging/texting/credits', { token });
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toMatch(/^Twilio failed/);
    expect((await call(t.app, 'GET', '/messaging/texting/credits', { token: church.token() })).statusCode).toBe(401);
  });

  it('reads an inbound webhook of at most a few kilobytes: an SMS is 1,600 characters (issue 31)', async () => {
    const church = makeChurch();
    const provider = await addProvider(church);
    const url = `/messaging/texting/webhooks/${provider.id}/inbound`;
    const huge = { MessageSid: 'SMbig0001', From: '+15554000009', To: '+15550000000', Body: 'x'.repeat(200_000) };
    const res = await t.app.inject({ method: 'POST', url, payload: new URLSearchParams(huge).toString(), headers: signed(`https://api.church.test${url}`, huge) });
    expect(res.statusCode).toBe(413);
    expect(res.json().errors[0]).toBe('Body is too large');
    // the longest SMS, written out in the form's escaping, still fits
    const longest = { MessageSid: 'SMlong001', From: '+15554000009', To: '+15550000000', Body: '🙏'.repeat(800) };
    const ok = await t.app.inject({ method: 'POST', url, payload: new URLSearchParams(longest).toString(), headers: signed(`https://api.church.test${url}`, longest) });
    expect(ok.statusCode).toBe(200);
  });

  it('handles inbound STOP then START (Twilio-signed), keeps a consent log, and applies status callbacks', async () => {
    const church = makeChurch();
    const provider = await addProvider(church);
    const person = t.membership.addPerson(church.churchId, { mobilePhone: '+15554000001' });
    const url = `/messaging/texting/webhooks/${provider.id}/inbound`;
    const full = `https://api.church.test${url}`;
    const stop = { MessageSid: 'SMin0001', From: '+15554000001', To: '+15550000000', Body: 'stop' };
    const body = new URLSearchParams(stop).toString();
    // unsigned or forged: refused, nothing recorded
    expect((await t.app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'forged' } })).statusCode).toBe(400);
    let res = await t.app.inject({ method: 'POST', url, payload: body, headers: signed(full, stop) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/xml');
    await t.drain();
    expect(person.optedOut).toBe(true);
    // a redelivery has no second effect
    res = await t.app.inject({ method: 'POST', url, payload: body, headers: signed(full, stop) });
    expect(res.statusCode).toBe(200);
    await t.drain();
    const start = { MessageSid: 'SMin0002', From: '+15554000001', To: '+15550000000', Body: 'START' };
    await t.app.inject({ method: 'POST', url, payload: new URLSearchParams(start).toString(), headers: signed(full, start) });
    await t.drain();
    expect(person.optedOut).toBe(false);
    const consent = await t.app.db.select().from(consentLogs).where(eq(consentLogs.churchId, church.churchId));
    expect(consent.map((c) => `${c.keyword}:${c.action}:${c.phone}:${c.personIds.join()}`).sort()).toEqual([`START:optIn:+15554000001:${person.id}`, `STOP:optOut:+15554000001:${person.id}`]);

    // status callback: a sent text later reported undelivered
    const sent = await call(t.app, 'POST', '/messaging/texting/sendPerson', { token: church.token(['Texting.Send']), body: { personId: person.id, message: 'Hello' } });
    const [log] = await t.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, church.churchId), eq(deliveryLogs.sentTextId, sent.json().sentTextId)));
    const status = { MessageSid: log!.providerMessageId!, MessageStatus: 'undelivered', ErrorCode: '30003' };
    const statusUrl = `/messaging/texting/webhooks/${provider.id}/status`;
    res = await t.app.inject({ method: 'POST', url: statusUrl, payload: new URLSearchParams(status).toString(), headers: signed(`https://api.church.test${statusUrl}`, status) });
    expect(res.statusCode).toBe(200);
    await t.drain();
    const [after] = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.id, log!.id));
    expect(after).toMatchObject({ status: 'undelivered', error: 'error 30003' });
    const details = await call(t.app, 'GET', `/messaging/texting/sent/${sent.json().sentTextId}/details`, { token: church.token(['Texting.Send']) });
    expect(details.json()).toMatchObject({ successCount: 0, failCount: 1 });
  });
});

describe('group email through SendGrid against a loopback fake', () => {
  it('merges fields (escaped), queues one mail per address with a plain-text part, and retries a failing provider', async () => {
    const church = makeChurch();
    t.membership.addChurch(church.churchId, 'Grace & Truth');
    const groupId = randomUUID();
    const ann = t.membership.addPerson(church.churchId, { groupIds: [groupId], firstName: '<Ann>', lastName: 'Lee' });
    const failing = t.membership.addPerson(church.churchId, { groupIds: [groupId], firstName: 'Fay' });
    t.membership.addPerson(church.churchId, { groupIds: [groupId], email: null });
    sendgridAnswer = (req) => {
      const to = (req.json as { personalizations: Array<{ to: Array<{ email: string }> }> }).personalizations[0]!.to[0]!.email;
      return to === failing.email ? { status: 500, body: { errors: [{ message: 'Internal error' }] } } : { status: 202 };
    };
    const token = church.token(['Groups.Edit']);
    const preview = await call(t.app, 'GET', `/messaging/emailTemplates/preview/${groupId}`, { token });
    expect(preview.json()).toMatchObject({ totalMembers: 3, eligibleCount: 2, noEmailCount: 1 });
    const res = await call(t.app, 'POST', '/messaging/emailTemplates/send', {
      token,
      body: { groupId, subject: 'News for {{firstName}}', htmlContent: '<p>Dear {{ firstName }} {{lastName}},</p><p>Welcome to {{churchName}}. <a href="https://church.test/events">See events</a></p>' },
    });
    expect(res.statusCode).toBe(200);
    // handed to the mail job (delivery retries) in one transaction with their logs: counted as queued
    expect(res.json()).toEqual({ totalMembers: 3, recipientCount: 2, successCount: 2, failCount: 0, noEmailCount: 1 });
    await t.drain();
    const toAnn = t.fake.seen.find((r) => r.path === '/v3/mail/send' && JSON.stringify(r.json).includes(ann.email!))!;
    const mail = toAnn.json as { subject: string; content: Array<{ type: string; value: string }> };
    expect(toAnn.headers.authorization).toBe('Bearer SG.test-key');
    const html = mail.content.find((c) => c.type === 'text/html')!.value;
    const text = mail.content.find((c) => c.type === 'text/plain')!.value;
    expect(html).toContain('Dear &lt;Ann&gt; Lee');
    expect(html).toContain('Grace &amp; Truth');
    expect(text).toContain('Dear <Ann> Lee,');
    expect(text).toContain('https://church.test/events');
    expect(text.split('\n').filter((l) => l.trim()).length).toBeGreaterThanOrEqual(2);
    expect(readMailbox(t.config)).toEqual([]);
    const logs = await t.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, church.churchId), eq(deliveryLogs.channel, 'email')));
    expect(logs.map((l) => l.status).sort()).toEqual(['queued', 'queued']);
    // the provider kept failing for Fay: her mail was tried with the delivery retries, then kept as failed in the outbox
    expect(t.fake.seen.filter((r) => r.path === '/v3/mail/send' && JSON.stringify(r.json).includes(failing.email!)).length).toBe(DELIVERY_RETRIES.attempts);
    const failed = await t.app.deps.database.rows<{ n: number }>(`select count(*)::int as n from job_outbox where state = 'failed' and name = 'messaging.sendEmail' and data->'message'->>'to' = $1`, [failing.email]);
    expect(failed[0]!.n).toBe(1);
    // a leader of another group may not write to this one
    expect((await call(t.app, 'POST', '/messaging/emailTemplates/send', { token: church.token([], { leaderGroupIds: [randomUUID()] }), body: { groupId, subject: 's', htmlContent: 'h' } })).statusCode).toBe(401);
  });

  it('keeps templates per church', async () => {
    const church = makeChurch();
    const token = church.token(['People.Edit']);
    const saved = await call(t.app, 'POST', '/messaging/emailTemplates', { token, body: { name: 'Welcome', subject: 'Hi {{firstName}}', htmlContent: '<p>Hi</p>' } });
    expect(saved.statusCode).toBe(200);
    const id = saved.json()[0].id;
    expect((await call(t.app, 'GET', '/messaging/emailTemplates', { token })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/messaging/emailTemplates/${id}`, { token: makeChurch().token(['People.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/messaging/emailTemplates', { token, body: { subject: 'x' } })).json().errors[0].param).toBe('name');
    expect((await call(t.app, 'DELETE', `/messaging/emailTemplates/${id}`, { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/emailTemplates/${id}`, { token })).statusCode).toBe(404);
  });
});

describe('blocked IPs', () => {
  it('blocks an address from posting to a chat and clears a service through the JWT and the signed route', async () => {
    const church = makeChurch();
    const host = church.token(['Chat.Host']);
    const conv = await call(t.app, 'POST', '/messaging/conversations', { token: host, body: { contentType: 'streamingLive', contentId: 's1', allowAnonymousPosts: true } });
    const serviceId = randomUUID();
    const saved = await call(t.app, 'POST', '/messaging/blockedips', { token: host, body: [{ conversationId: conv.json()[0].id, serviceId, ipAddress: '127.0.0.1' }] });
    expect(saved.statusCode).toBe(200);
    const post = await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv.json()[0].id, content: 'spam' } });
    expect(post.statusCode).toBe(401);
    expect(post.json().errors[0]).toMatch(/may not post/);
    // refused: neither the message nor the conversation's counters
    expect((await call(t.app, 'GET', `/messaging/messages/catchup/${church.churchId}/${conv.json()[0].id}`)).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/messaging/conversations/${church.churchId}/${conv.json()[0].id}`, { token: host })).json()).toMatchObject({ postCount: 0, lastPostId: null });
    const cleared = await call(t.app, 'POST', '/messaging/blockedips/clear', { token: church.token(['StreamingServices.Edit']), body: [{ serviceId, churchId: church.churchId }] });
    expect(cleared.json()).toEqual({ removed: 1 });
    expect((await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv.json()[0].id, content: 'hello' } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/messaging/internal/blockedips/clear', { body: [{ serviceId, churchId: church.churchId }] })).statusCode).toBe(401);
    await t.drain();
    expect(reported(church.churchId, 'blockedIp').map((c) => c.action).sort()).toEqual(['created', 'destroyed']);
  });
});

describe('merge fields', () => {
  it('fills the known fields, escaped for HTML, and leaves others as written', () => {
    expect(mergeFields('{{firstName}} {{unknown}} {{email}}', { firstName: 'A&B', email: 'a@b' })).toBe('A&amp;B {{unknown}} a@b');
  });
});
