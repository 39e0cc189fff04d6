import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Database } from '@church/common';
import { call, testDatabase } from '@church/common/testing';
import { conversations } from '../../src/db/schema';
import { messaging } from '../../src/app';
import { eventually, makeChurch, MIGRATIONS, sleep, startMessaging, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

const t = useMessaging();

async function conversation(churchId: string, contentType = 'group', contentId: string = randomUUID()) {
  const id = randomUUID();
  await t.app.db.insert(conversations).values({ id, churchId, contentType, contentId, title: 'Chat' });
  return id;
}

describe('WebSocket and connections (in-process)', () => {
  it('hands a new socket its id, and again on a text frame such as getId', async () => {
    const s = await openSocket(t.app);
    expect(s.socketId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.received[0]).toEqual({ churchId: '', conversationId: '', action: 'socketId', data: s.socketId });
    s.ws.send('getId');
    await eventually(() => s.received.filter((r) => r.action === 'socketId').length === 2);
    await s.close();
  });

  it('registers, broadcasts attendance and messages, renames, drops', async () => {
    const church = makeChurch();
    const conv = await conversation(church.churchId);
    const a = await openSocket(t.app);
    const b = await openSocket(t.app);
    const other = await openSocket(t.app);
    let res = await call(t.app, 'POST', '/messaging/connections', { body: [{ churchId: church.churchId, conversationId: conv, socketId: a.socketId, displayName: 'Ann' }] });
    expect(res.statusCode).toBe(200);
    res = await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: conv, socketId: b.socketId, displayName: 'Bob' } });
    expect(res.statusCode).toBe(200);
    const att = await a.waitFor('attendance', (r) => (r.data as { totalViewers: number }).totalViewers === 2);
    expect(att.conversationId).toBe(conv);
    expect((att.data as { viewers: Array<{ displayName: string }> }).viewers.map((v) => v.displayName).sort()).toEqual(['Ann', 'Bob']);

    const list = await call(t.app, 'GET', `/messaging/connections/${church.churchId}/${conv}`);
    expect(list.json()).toHaveLength(2);
    expect(list.json()[0].socketId).toBeUndefined(); // socket ids are not shown to the public

    // a message posted reaches both registered sockets, never the unregistered one
    const sent = await call(t.app, 'POST', '/messaging/messages/send', { body: [{ churchId: church.churchId, conversationId: conv, displayName: 'Guest', content: 'Hello all', messageType: 'comment' }] });
    expect(sent.statusCode).toBe(200);
    const m = await b.waitFor('message');
    expect(m).toMatchObject({ churchId: church.churchId, conversationId: conv, data: { content: 'Hello all', displayName: 'Guest', personId: null } });
    await a.waitFor('message');
    await sleep(100);
    expect(other.received.some((r) => r.action === 'message')).toBe(false);

    res = await call(t.app, 'POST', '/messaging/connections/setName', { body: { socketId: b.socketId, name: 'Robert' } });
    expect(res.statusCode).toBe(200);
    await a.waitFor('attendance', (r) => (r.data as { viewers: Array<{ displayName: string }> }).viewers.some((v) => v.displayName === 'Robert'));

    res = await call(t.app, 'DELETE', `/messaging/connections/${church.churchId}/${conv}/${a.socketId}`);
    expect(res.statusCode).toBe(200);
    await b.waitFor('attendance', (r) => (r.data as { totalViewers: number }).totalViewers === 1);
    expect((await call(t.app, 'DELETE', `/messaging/connections/${church.churchId}/${conv}/${a.socketId}`)).statusCode).toBe(404);

    // a closed socket leaves the registry
    await b.close();
    await eventually(async () => (await call(t.app, 'GET', `/messaging/connections/${church.churchId}/${conv}`)).json().length === 0);
    await a.close();
    await other.close();
  });

  it('refuses unknown sockets and bad bodies, and never lets a public caller listen as a person', async () => {
    const church = makeChurch();
    const conv = await conversation(church.churchId);
    let res = await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: conv, socketId: 'nope' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('socketId');
    res = await call(t.app, 'POST', '/messaging/connections', { body: {} });
    expect(res.statusCode).toBe(400);
    const s = await openSocket(t.app);
    const victim = randomUUID();
    res = await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: 'alerts', socketId: s.socketId, personId: victim } });
    expect(res.json()[0].personId).toBeNull();
    await call(t.app, 'POST', '/messaging/connections/tmpSendAlert', { body: { churchId: church.churchId, personId: victim } });
    await sleep(100);
    expect(s.received.some((r) => r.action === 'alert')).toBe(false);
    // with the person's own token the registration carries the person and alerts arrive (for a person of the church)
    t.membership.addPerson(church.churchId, { id: church.personId });
    res = await call(t.app, 'POST', '/messaging/connections', { token: church.token(), body: { churchId: church.churchId, conversationId: 'alerts', socketId: s.socketId, personId: church.personId } });
    expect(res.json()[0].personId).toBe(church.personId);
    await call(t.app, 'POST', '/messaging/connections/tmpSendAlert', { body: { churchId: church.churchId, personId: church.personId } });
    await s.waitFor('alert');
    await s.close();
  });

  it('ends a burst of registrations with an attendance every socket agrees on', async () => {
    const church = makeChurch();
    const conv = await conversation(church.churchId, 'streamingLive');
    const sockets = await Promise.all(Array.from({ length: 12 }, () => openSocket(t.app)));
    const answers = await Promise.all(
      sockets.map((s, i) => call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: conv, socketId: s.socketId, displayName: `Viewer ${i % 3}` } })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(sockets.map(() => 200));
    type Attendance = { totalViewers: number; viewers: Array<{ displayName: string; count: number }> };
    const last = (s: (typeof sockets)[number]) => s.received.filter((r) => r.action === 'attendance').at(-1)?.data as Attendance | undefined;
    // calls made while a broadcast runs share the next one; the last broadcast counts everyone
    await eventually(() => sockets.every((s) => last(s)?.totalViewers === 12));
    expect(last(sockets[0]!)!.viewers.map((v) => [v.displayName, v.count]).sort()).toEqual([
      ['Viewer 0', 4],
      ['Viewer 1', 4],
      ['Viewer 2', 4],
    ]);
    await Promise.all(sockets.map((s) => s.close()));
  });

  it('pushes events published together whole and in order, large ones included', async () => {
    const church = makeChurch();
    const realtime = messaging.deps(t.app).providers.realtime;
    const s = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: 'stream-2', socketId: s.socketId } });
    const big = 'x'.repeat(70_000); // a frame with a 64-bit length
    await Promise.all([
      realtime.publish(church.churchId, 'stream-2', { action: 'callout', data: 'one' }),
      realtime.publish(church.churchId, 'stream-2', { action: 'callout', data: big }),
      realtime.publish(church.churchId, 'stream-2', { action: 'callout', data: 'three' }),
      realtime.publish(church.churchId, 'elsewhere', { action: 'callout', data: 'not for this socket' }),
    ]);
    await eventually(() => s.received.filter((r) => r.action === 'callout').length === 3);
    await sleep(50);
    expect(s.received.filter((r) => r.action === 'callout').map((r) => r.data)).toEqual(['one', big, 'three']);
    await s.close();
  });

  it('gives each socket the events published while it was registered, in order, when joins and leaves share a flush window', async () => {
    const church = makeChurch();
    const realtime = messaging.deps(t.app).providers.realtime;
    const a = await openSocket(t.app);
    const b = await openSocket(t.app);
    const conn = (socketId: string, personId: string | null = null) => ({ churchId: church.churchId, conversationId: 'stream-3', socketId, displayName: null, personId, ipAddress: null });
    await realtime.register(conn(a.socketId, church.personId));
    await sleep(100); // a flush window passes: nothing is pending
    // all of these within one window (in-process, the bus and the registry answer at once)
    await realtime.publish(church.churchId, 'stream-3', { action: 'callout', data: 'one' });
    await realtime.register(conn(b.socketId));
    await realtime.publish(church.churchId, 'stream-3', { action: 'callout', data: 'two' });
    await realtime.publishToPerson(church.churchId, church.personId, { churchId: church.churchId, conversationId: 'stream-3', action: 'callout', data: 'for a' });
    await realtime.unregister(church.churchId, 'stream-3', a.socketId);
    await realtime.publish(church.churchId, 'stream-3', { action: 'callout', data: 'three' });
    await realtime.publishToPerson(church.churchId, church.personId, { churchId: church.churchId, conversationId: 'stream-3', action: 'callout', data: 'a left' });
    const callouts = (s: { received: Array<{ action: string; data: unknown }> }) => s.received.filter((r) => r.action === 'callout').map((r) => r.data);
    await eventually(() => callouts(b).length === 2);
    await sleep(100);
    expect(callouts(a)).toEqual(['one', 'two', 'for a']);
    expect(callouts(b)).toEqual(['two', 'three']);
    await a.close();
    await b.close();
  });

  it('broadcasts a callout to the conversation (hosts only)', async () => {
    const church = makeChurch();
    const s = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: 'stream-1', socketId: s.socketId } });
    expect((await call(t.app, 'POST', '/messaging/messages/setCallout', { token: church.token(), body: { conversationId: 'stream-1', content: 'x' } })).statusCode).toBe(401);
    const res = await call(t.app, 'POST', '/messaging/messages/setCallout', { token: church.token(['Chat.Host']), body: { conversationId: 'stream-1', content: 'Pray now' } });
    expect(res.statusCode).toBe(200);
    expect((await s.waitFor('callout')).data).toBe('Pray now');
    await s.close();
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
const describeRedis = redisUrl ? describe : describe.skip;
if (!redisUrl) console.log('realtime across replicas: skipped (set TEST_REDIS_URL=redis://127.0.0.1:6379 to run)');

describeRedis('two messaging replicas on one Redis', () => {
  const prefix = `msg:test:${randomUUID().slice(0, 8)}:`;
  // Only the fan-out uses Redis here; jobs stay in-process so the test can drain them.
  const config = { REALTIME_REDIS_URL: redisUrl!, REALTIME_HEARTBEAT_SECONDS: '1', REALTIME_PREFIX: prefix };
  // The replicas share one database, made before them and closed after them.
  let shared: Database;
  beforeAll(async () => {
    shared = await testDatabase('messaging', MIGRATIONS);
  });
  const replica = () => useMessaging({ config, fakes: async () => ({ overrides: { database: shared } }) });
  const a = replica();
  const b = replica();
  afterAll(async () => {
    await shared?.close();
  });

  it('delivers a message posted to replica A to a socket held by replica B, and shares the registry', async () => {
    const church = makeChurch();
    const conv = randomUUID();
    await a.app.db.insert(conversations).values({ id: conv, churchId: church.churchId, contentType: 'group', contentId: randomUUID() });
    const onB = await openSocket(b.app);
    const onA = await openSocket(a.app);
    // registered through A although B holds the socket
    let res = await call(a.app, 'POST', '/messaging/connections', { body: [{ churchId: church.churchId, conversationId: conv, socketId: onB.socketId, displayName: 'On B' }] });
    expect(res.statusCode).toBe(200);
    res = await call(b.app, 'POST', '/messaging/connections', { body: [{ churchId: church.churchId, conversationId: conv, socketId: onA.socketId, displayName: 'On A' }] });
    expect(res.statusCode).toBe(200);
    for (const app of [a.app, b.app]) expect((await call(app, 'GET', `/messaging/connections/${church.churchId}/${conv}`)).json()).toHaveLength(2);
    await call(a.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv, displayName: 'X', content: 'across replicas' } });
    expect((await onB.waitFor('message')).data).toMatchObject({ content: 'across replicas' });
    expect((await onA.waitFor('message')).data).toMatchObject({ content: 'across replicas' });
    // a dropped socket disappears from the shared registry
    await onB.close();
    await eventually(async () => (await call(a.app, 'GET', `/messaging/connections/${church.churchId}/${conv}`)).json().length === 1);
    await onA.close();
  });

  it('pushes to the publishing replica’s own sockets at once and once, Redis or not; the other replicas get what Redis refused when it is back', async () => {
    const church = makeChurch();
    const conv = randomUUID();
    const onA = await openSocket(a.app);
    const onB = await openSocket(b.app);
    await call(a.app, 'POST', '/messaging/connections', {
      body: [
        { churchId: church.churchId, conversationId: conv, socketId: onA.socketId, displayName: 'On A' },
        { churchId: church.churchId, conversationId: conv, socketId: onB.socketId, displayName: 'On B' },
      ],
    });
    const hub = messaging.deps(a.app).providers.realtime;
    const messages = (s: typeof onA) => s.received.filter((r) => r.action === 'message').map((r) => (r.data as { content: string }).content);
    // while Redis is up: once at A (its own event coming back from Redis is not delivered again), once at B
    await hub.publish(church.churchId, conv, { action: 'message', data: { content: 'first' } });
    await onB.waitFor('message', (r) => (r.data as { content: string }).content === 'first');
    // A's connection to Redis breaks: its own socket still gets the next message, B gets it once A reaches Redis again
    const redis = (hub as unknown as { redis: { disconnect(): void; connect(): Promise<void> } }).redis;
    redis.disconnect();
    await hub.publish(church.churchId, conv, { action: 'message', data: { content: 'during' } });
    await onA.waitFor('message', (r) => (r.data as { content: string }).content === 'during');
    expect(messages(onB)).toEqual(['first']);
    await redis.connect();
    await onB.waitFor('message', (r) => (r.data as { content: string }).content === 'during');
    await sleep(300);
    expect(messages(onA)).toEqual(['first', 'during']);
    expect(messages(onB)).toEqual(['first', 'during']);
    await onA.close();
    await onB.close();
  });

  it('gives every socket of both replicas every message once and in order while a replica\'s read of the bus is cut', async () => {
    const church = makeChurch();
    const conv = randomUUID();
    const sockets = [await openSocket(a.app), await openSocket(a.app), await openSocket(b.app), await openSocket(b.app)];
    await call(a.app, 'POST', '/messaging/connections', { body: sockets.map((s, i) => ({ churchId: church.churchId, conversationId: conv, socketId: s.socketId, displayName: `S${i}` })) });
    // both replicas have indexed the four registrations
    for (const s of sockets) await s.waitFor('attendance', (r) => (r.data as { totalViewers: number }).totalViewers === 4);
    const hubA = messaging.deps(a.app).providers.realtime;
    const hubB = messaging.deps(b.app).providers.realtime;
    const admin = new Redis(redisUrl!);
    /** Cuts a replica's connection that reads the bus (CLIENT KILL), as a network blip or a Redis failover would. */
    const cutReader = async (replicaId: string) => {
      const list = (await admin.client('LIST')) as string;
      const line = list.split('\n').find((l) => l.includes(` name=${prefix}read:${replicaId} `));
      expect(line).toBeDefined();
      await admin.client('KILL', 'ID', /(?:^|\s)id=(\d+)/.exec(line!)![1]!);
    };
    const N = 40;
    const series = (hub: typeof hubA, tag: string, cutAt: number, cut: () => Promise<void>) => async () => {
      for (let i = 0; i < N; i++) {
        if (i === cutAt) await cut();
        await hub.publish(church.churchId, conv, { action: 'message', data: { content: `${tag}${i}` } });
      }
    };
    // A publishes while B's read is cut, then B publishes while A's is
    await series(hubA, 'a', 10, () => cutReader(hubB.replicaId))();
    await series(hubB, 'b', 10, () => cutReader(hubA.replicaId))();
    const contents = (s: (typeof sockets)[number]) => s.received.filter((r) => r.action === 'message').map((r) => (r.data as { content: string }).content);
    for (const s of sockets) await eventually(() => contents(s).length >= 2 * N, 15_000);
    await sleep(300);
    const expected = (tag: string) => Array.from({ length: N }, (_, i) => `${tag}${i}`);
    for (const s of sockets) {
      expect(contents(s).filter((c) => c.startsWith('a'))).toEqual(expected('a'));
      expect(contents(s).filter((c) => c.startsWith('b'))).toEqual(expected('b'));
      expect(contents(s)).toHaveLength(2 * N);
    }
    admin.disconnect();
    for (const s of sockets) await s.close();
  });

  it('reaps the connections of a replica that died without cleaning up', async () => {
    const church = makeChurch();
    // a replica of its own: its death is the test's subject
    const c = await startMessaging({ config, overrides: { database: shared } });
    const s = await openSocket(c.app);
    const watcher = await openSocket(a.app);
    await call(c.app, 'POST', '/messaging/connections', { body: [{ churchId: church.churchId, conversationId: 'live', socketId: s.socketId, displayName: 'Doomed' }, { churchId: church.churchId, conversationId: 'live', socketId: watcher.socketId, displayName: 'Watcher' }] });
    expect((await call(a.app, 'GET', `/messaging/connections/${church.churchId}/live`)).json()).toHaveLength(2);
    await messaging.deps(c.app).providers.realtime.crash();
    await c.close();
    // within a few heartbeats the survivor reaps it and broadcasts attendance again
    await eventually(async () => (await call(a.app, 'GET', `/messaging/connections/${church.churchId}/live`)).json().length === 1, 10_000);
    await watcher.waitFor('attendance', (r) => (r.data as { totalViewers: number }).totalViewers === 1, 10_000);
    await watcher.close();
  });
});
