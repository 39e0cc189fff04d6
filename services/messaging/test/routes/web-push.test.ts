import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import webpush from 'web-push';
import { call, tokenFor } from '@church/common/testing';
import { messagingConfig } from '../../src/config';
import { deliveryLogs, webPushSubscriptions } from '../../src/db/schema';
import { makeChurch, useMessaging, type MessagingTest } from '../setup';

// RFC 8188's reference implementation, which web-push itself encrypts with: the test decrypts as a browser would.
const ece = createRequire(require.resolve('web-push'))('http_ece') as { decrypt(body: Buffer, params: { version: string; privateKey: unknown; authSecret: string }): Buffer };

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A push service on loopback (RFC 8030): 201 for a live subscription, 410/404 for gone ones, 500 for a broken one. */
async function fakePushService() {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      const status = path.startsWith('/gone') ? 410 : path.startsWith('/missing') ? 404 : path.startsWith('/broken') ? 500 : 201;
      res.writeHead(status, status === 201 ? { location: `${path}/msg-1` } : {});
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** A browser's push subscription: its own P-256 key pair and auth secret, as `PushManager.subscribe` makes them. */
function browser(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  return { ecdh, auth, subscription: { endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth } } };
}

const vapid = webpush.generateVAPIDKeys();
const keys = { WEBPUSH_PUBLIC_KEY: vapid.publicKey, WEBPUSH_PRIVATE_KEY: vapid.privateKey, WEBPUSH_SUBJECT: 'mailto:admin@church.test' };
let push: Awaited<ReturnType<typeof fakePushService>>;
beforeAll(async () => {
  push = await fakePushService();
});
const t = useMessaging({ config: { ...keys, OUTBOUND_ALLOW_PRIVATE: 'true' } });
/** the same keys, without private addresses allowed (production's rule) */
const strict = useMessaging({ config: keys });
/** no VAPID keys at all (the embedded default) */
const bare = useMessaging();
afterAll(async () => {
  await push?.close();
});

const subscribe = (app: MessagingTest, token: string, body: unknown) => call(app.app, 'POST', '/messaging/webpush/subscribe', { token, body });
const rows = (app: MessagingTest, churchId: string) => app.app.db.select().from(webPushSubscriptions).where(eq(webPushSubscriptions.churchId, churchId));

describe('the VAPID settings', () => {
  it('are checked when the service starts', () => {
    const param = (env: Record<string, string>) => messagingConfig.safeParse(env).error?.issues.map((i) => i.path.join('.'));
    expect(param({ WEBPUSH_PUBLIC_KEY: vapid.publicKey, WEBPUSH_PRIVATE_KEY: vapid.privateKey, WEBPUSH_SUBJECT: 'https://church.test/contact' })).toBeUndefined();
    expect(param({ WEBPUSH_PUBLIC_KEY: vapid.privateKey })).toEqual(['WEBPUSH_PUBLIC_KEY']);
    expect(param({ WEBPUSH_PRIVATE_KEY: 'not base64!' })).toEqual(['WEBPUSH_PRIVATE_KEY']);
    expect(param({ WEBPUSH_SUBJECT: 'admin@church.test' })).toEqual(['WEBPUSH_SUBJECT']);
  });
});

describe('GET /messaging/webpush/publicKey', () => {
  it('answers the VAPID public key to anyone, and 400 naming the settings when there are none', async () => {
    const res = await call(t.app, 'GET', '/messaging/webpush/publicKey');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ publicKey: vapid.publicKey, enabled: true });
    const none = await call(bare.app, 'GET', '/messaging/webpush/publicKey');
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0]).toEqual({ msg: 'Web push is not configured: set WEBPUSH_PUBLIC_KEY, WEBPUSH_PRIVATE_KEY, WEBPUSH_SUBJECT', param: 'WEBPUSH_PUBLIC_KEY', location: 'config' });
  });
});

describe('POST /messaging/webpush/subscribe', () => {
  it('stores the browser for the caller, once per endpoint, moving it to whoever enrolls it last', async () => {
    const church = makeChurch();
    const b = browser(`${push.url}/sub/${randomUUID()}`);
    const res = await subscribe(t, church.token(), { subscription: b.subscription, appName: 'B1AppPwa', deviceInfo: 'Firefox' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, id: expect.any(String) });
    let saved = await rows(t, church.churchId);
    expect(saved).toEqual([expect.objectContaining({ id: res.json().id, personId: church.personId, endpoint: b.subscription.endpoint, p256dh: b.subscription.keys.p256dh, auth: b.auth, appName: 'B1AppPwa', deviceInfo: 'Firefox' })]);
    // the same browser, now signed in as someone else of the church, with fresh keys
    const other = randomUUID();
    const again = browser(b.subscription.endpoint);
    const second = await subscribe(t, church.tokenOf(other), { subscription: again.subscription });
    expect(second.json().id).toBe(res.json().id);
    saved = await rows(t, church.churchId);
    expect(saved.map((r) => [r.personId, r.p256dh])).toEqual([[other, again.subscription.keys.p256dh]]);
    // the browser signed in to another church: only that browser knows its endpoint, and it now belongs there
    const elsewhere = makeChurch();
    expect((await subscribe(t, elsewhere.token(), { subscription: again.subscription })).statusCode).toBe(200);
    expect(await rows(t, church.churchId)).toEqual([]);
    expect((await rows(t, elsewhere.churchId)).map((r) => r.personId)).toEqual([elsewhere.personId]);
  });

  it('needs a signed-in caller', async () => {
    const body = { subscription: browser(`${push.url}/sub/${randomUUID()}`).subscription };
    expect((await call(t.app, 'POST', '/messaging/webpush/subscribe', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/messaging/webpush/unsubscribe', { body: { endpoint: body.subscription.endpoint } })).statusCode).toBe(401);
  });

  it('refuses bad keys, endpoints that are not addresses, and a token without a person', async () => {
    const church = makeChurch();
    const b = browser(`${push.url}/sub/${randomUUID()}`);
    const bad = async (body: unknown, param: string, token = church.token()) => {
      const res = await subscribe(t, token, body);
      expect([res.statusCode, res.json().errors[0].param]).toEqual([400, param]);
    };
    await bad({ subscription: { ...b.subscription, keys: { p256dh: 'short', auth: b.auth } } }, 'subscription.keys.p256dh');
    await bad({ subscription: { ...b.subscription, keys: { p256dh: b.subscription.keys.p256dh, auth: 'AAAA' } } }, 'subscription.keys.auth');
    await bad({ subscription: { keys: b.subscription.keys } }, 'subscription.endpoint');
    await bad({ subscription: { ...b.subscription, endpoint: 'ftp://push.example.com/x' } }, 'subscription.endpoint');
    await bad({ subscription: b.subscription }, 'personId', tokenFor({ churchId: church.churchId, personId: null, permissions: [] }));
    expect(await rows(t, church.churchId)).toEqual([]);
  });

  it('takes only public https endpoints in production', async () => {
    const church = makeChurch();
    for (const endpoint of ['http://push.example.com/x', 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://169.254.169.254/x', 'https://localhost/x', 'https://intranet/x', 'https://user:pw@push.example.com/x', 'https://localhost./x', 'https://LOCALHOST../x', 'https://push.localhost./x', 'https://intranet./x', 'https://127.0.0.1./x', 'https://[::ffff:7f00:1]/x', 'https://0x7f000001/x']) {
      const res = await subscribe(strict, church.token(), { subscription: browser(endpoint).subscription });
      expect([endpoint, res.statusCode, res.json().errors?.[0]?.param]).toEqual([endpoint, 400, 'subscription.endpoint']);
    }
    const ok = await subscribe(strict, church.token(), { subscription: browser('https://updates.push.services.mozilla.com/wpush/v2/abc').subscription });
    expect(ok.statusCode).toBe(200);
  });

  it('answers 400 naming the settings when web push is not configured, and stores nothing', async () => {
    const church = makeChurch();
    const res = await subscribe(bare, church.token(), { subscription: browser('https://fcm.googleapis.com/fcm/send/x').subscription });
    expect([res.statusCode, res.json().errors[0].param]).toEqual([400, 'WEBPUSH_PUBLIC_KEY']);
    expect(await rows(bare, church.churchId)).toEqual([]);
  });

  it('keeps a person\'s 20 most recent browsers', async () => {
    const church = makeChurch();
    for (let i = 0; i < 21; i++) expect((await subscribe(t, church.token(), { subscription: browser(`${push.url}/many/${i}`).subscription })).statusCode).toBe(200);
    const kept = await rows(t, church.churchId);
    expect(kept).toHaveLength(20);
    expect(kept.some((r) => r.endpoint.endsWith('/many/0'))).toBe(false);
  });
});

describe('POST /messaging/webpush/unsubscribe', () => {
  it('removes the caller\'s church\'s subscription and never another church\'s', async () => {
    const church = makeChurch();
    const endpoint = `${push.url}/sub/${randomUUID()}`;
    await subscribe(t, church.token(), { subscription: browser(endpoint).subscription });
    const foreign = await call(t.app, 'POST', '/messaging/webpush/unsubscribe', { token: makeChurch().token(), body: { endpoint } });
    expect(foreign.json()).toEqual({ success: true, removed: 0 });
    expect(await rows(t, church.churchId)).toHaveLength(1);
    const mine = await call(t.app, 'POST', '/messaging/webpush/unsubscribe', { token: church.token(), body: { endpoint } });
    expect(mine.json()).toEqual({ success: true, removed: 1 });
    expect(await rows(t, church.churchId)).toEqual([]);
    const none = await call(t.app, 'POST', '/messaging/webpush/unsubscribe', { token: church.token(), body: {} });
    expect([none.statusCode, none.json().errors[0].param]).toEqual([400, 'endpoint']);
  });
});

describe('web push in the notification escalation', () => {
  it('pushes a notification to the person\'s browsers: VAPID-signed, aes128gcm-encrypted to the browser\'s keys', async () => {
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId);
    const b = browser(`${push.url}/live/${randomUUID()}`);
    await subscribe(t, church.tokenOf(person.id), { subscription: b.subscription });
    const res = await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [person.id], contentType: 'task', contentId: 't1', message: 'A task for you', link: '/mobile/plans' } });
    expect(res.statusCode).toBe(200);
    await t.drain();

    const got = push.seen.filter((s) => s.path === new URL(b.subscription.endpoint).pathname);
    expect(got).toHaveLength(1);
    const { headers, body } = got[0]!;
    expect(headers['content-encoding']).toBe('aes128gcm');
    expect(headers.ttl).toBe('86400');
    // RFC 8292: `vapid t=<ES256 JWT for the push service's origin>, k=<our public key>`
    const [, jwt, k] = /^vapid t=([^,]+), k=(.+)$/.exec(String(headers.authorization))!;
    expect(k).toBe(vapid.publicKey);
    const [head, claims, sig] = jwt!.split('.');
    expect(JSON.parse(Buffer.from(claims!, 'base64url').toString())).toMatchObject({ aud: push.url, sub: 'mailto:admin@church.test' });
    const raw = Buffer.from(vapid.publicKey, 'base64url');
    const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') }, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig!, 'base64url'))).toBe(true);
    // the body is ciphertext: only the browser's private key and auth secret open it
    expect(body.includes(Buffer.from('A task for you'))).toBe(false);
    const opened = JSON.parse(ece.decrypt(body, { version: 'aes128gcm', privateKey: b.ecdh, authSecret: b.auth }).toString('utf8'));
    expect(opened).toEqual({ title: 'New notification', body: 'A task for you', type: 'task', contentId: 't1', link: '/mobile/plans', notificationId: res.json()[0].id });

    const logs = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.personId, person.id));
    expect(logs.map((l) => [l.channel, l.provider, l.status, l.recipient])).toEqual([['push', 'webpush', 'sent', push.url]]);
  });

  it('removes subscriptions the push service reports gone (404, 410) and keeps one that failed otherwise', async () => {
    const church = makeChurch();
    for (const path of ['live', 'gone', 'missing', 'broken']) await subscribe(t, church.token(), { subscription: browser(`${push.url}/${path}/${randomUUID()}`).subscription });
    const res = await call(t.app, 'POST', '/messaging/notifications/sendTest', { token: church.token(), body: { personId: church.personId, title: 'Hello' } });
    expect(res.json()).toEqual({ devices: 4, sent: 1 });
    expect((await rows(t, church.churchId)).map((r) => new URL(r.endpoint).pathname.split('/')[1]).sort()).toEqual(['broken', 'live']);
    const logs = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, church.churchId));
    expect(logs.map((l) => `${l.status}:${l.error ?? ''}`).sort()).toEqual(['failed:push service answered 500', 'sent:', 'unregistered:push service answered 404', 'unregistered:push service answered 410']);
  });

  it('never posts to a private address in production, whatever the stored endpoint', async () => {
    const church = makeChurch();
    const before = push.seen.length;
    const port = new URL(push.url).port;
    // rows as they might have been stored before the rule (or by a name that now resolves inside)
    for (const endpoint of [`https://127.0.0.1:${port}/live/a`, `https://localhost:${port}/live/b`, `${push.url}/live/c`, `https://localhost.:${port}/live/d`]) {
      const b = browser(endpoint);
      await strict.app.db.insert(webPushSubscriptions).values({ id: randomUUID(), churchId: church.churchId, personId: church.personId, endpoint, ...b.subscription.keys });
    }
    const res = await call(strict.app, 'POST', '/messaging/notifications/sendTest', { token: church.token(), body: { personId: church.personId, title: 'Hello' } });
    expect(res.json()).toEqual({ devices: 4, sent: 0 });
    expect(push.seen.length).toBe(before);
    const logs = await strict.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, church.churchId));
    expect(logs.map((l) => `${l.status}:${l.error}`)).toEqual(['failed:refused address', 'failed:refused address', 'failed:refused address', 'failed:refused address']);
  });
});
