import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { conversations, messages, notifications } from '../../src/db/schema';
import { depsOf } from '../../src/deps';
import { eventually, makeChurch, sleep, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

const t = useMessaging();

/** The app's real-time fan-out with its publish made to fail (Redis away) while `down` says so. */
function flakyRealtime() {
  const realtime = depsOf(t.app).providers.realtime;
  const publish = realtime.publish.bind(realtime);
  const state = { failuresLeft: 0, attempts: 0 };
  realtime.publish = async (...args: Parameters<typeof publish>) => {
    state.attempts++;
    if (state.failuresLeft > 0) {
      state.failuresLeft--;
      throw new Error('Connection is closed.');
    }
    return publish(...args);
  };
  return { state, restore: () => (realtime.publish = publish) };
}

async function liveChat(churchId: string) {
  const id = randomUUID();
  await t.app.db.insert(conversations).values({ id, churchId, contentType: 'streamingLive', contentId: randomUUID(), title: 'Live', allowAnonymousPosts: true });
  return id;
}

const outboxRows = (name: string) => t.app.deps.database.rows<{ state: string; data: { action: string } }>(`select state, data from job_outbox where name = $1`, [name]);

describe('a chat post is durable before its push (issue 32)', () => {
  it('answers 2xx and saves the message while the fan-out fails, and pushes it once the fan-out answers again', async () => {
    const church = makeChurch();
    const conv = await liveChat(church.churchId);
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: conv, socketId: socket.socketId, displayName: 'Viewer' } });
    const flaky = flakyRealtime();
    try {
      // Redis is away for the first three pushes: the post itself never waits on it.
      flaky.state.failuresLeft = 3;
      const res = await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv, displayName: 'Guest', content: 'during the outage' } });
      expect(res.statusCode).toBe(200);
      const [saved] = await t.app.db.select().from(messages).where(eq(messages.id, res.json()[0].id));
      expect(saved).toMatchObject({ content: 'during the outage', conversationId: conv });
      // the push was written with the message (the outbox), then retried until the fan-out answered: delivered once
      const pushed = await socket.waitFor('message', (r) => (r.data as { content: string }).content === 'during the outage');
      expect(pushed.data).toMatchObject({ id: saved!.id, content: 'during the outage', displayName: 'Guest' });
      expect(flaky.state.attempts).toBe(4);
      await t.drain();
      await sleep(100);
      expect(socket.received.filter((r) => r.action === 'message' && (r.data as { id: string }).id === saved!.id)).toHaveLength(1);
      // done: the outbox keeps nothing of it
      expect((await outboxRows('messaging.push')).filter((r) => r.state !== 'done')).toEqual([]);
    } finally {
      flaky.restore();
      await socket.close();
    }
  });

  it('keeps the push in the outbox while the fan-out fails, never losing the answered post', async () => {
    const church = makeChurch();
    const conv = await liveChat(church.churchId);
    const flaky = flakyRealtime();
    try {
      flaky.state.failuresLeft = 1_000; // longer than every attempt (tests retry at once)
      const res = await call(t.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv, content: 'kept' } });
      expect(res.statusCode).toBe(200);
      await t.drain();
      const rows = (await outboxRows('messaging.push')).filter((r) => r.state === 'failed');
      expect(rows.length).toBeGreaterThanOrEqual(1);
      expect((await t.app.db.select().from(messages).where(eq(messages.conversationId, conv))).map((m) => m.content)).toEqual(['kept']);
    } finally {
      flaky.restore();
    }
  });

  it('never posts twice: a retry with the same message id or Idempotency-Key answers the message it posted', async () => {
    const church = makeChurch();
    const conv = await liveChat(church.churchId);
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: conv, socketId: socket.socketId } });
    const id = randomUUID();
    const body = { id, churchId: church.churchId, conversationId: conv, displayName: 'Guest', content: 'once' };
    const first = await call(t.app, 'POST', '/messaging/messages/send', { body });
    const again = await call(t.app, 'POST', '/messaging/messages/send', { body });
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(again.json()).toEqual(first.json());
    expect(first.json()[0].id).toBe(id);
    // keyed: the same key and text give the same message
    const keyed = { churchId: church.churchId, conversationId: conv, displayName: 'Guest', content: 'keyed' };
    const k1 = await call(t.app, 'POST', '/messaging/messages/send', { body: keyed, headers: { 'idempotency-key': 'retry-1' } });
    const k2 = await call(t.app, 'POST', '/messaging/messages/send', { body: keyed, headers: { 'idempotency-key': 'retry-1' } });
    expect(k2.json()).toEqual(k1.json());
    const rows = await t.app.db.select().from(messages).where(eq(messages.conversationId, conv));
    expect(rows.map((m) => m.content).sort()).toEqual(['keyed', 'once']);
    const [counted] = await t.app.db.select().from(conversations).where(eq(conversations.id, conv));
    expect(counted!.postCount).toBe(2);
    await t.drain();
    await sleep(100);
    expect(socket.received.filter((r) => r.action === 'message').map((r) => (r.data as { content: string }).content).sort()).toEqual(['keyed', 'once']);
    // another conversation's message id is refused; a bad key is a 400 naming the header
    const other = await liveChat(church.churchId);
    const taken = await call(t.app, 'POST', '/messaging/messages/send', { body: { ...body, conversationId: other } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().errors[0]).toMatch(/already the id of another message/);
    const bad = await call(t.app, 'POST', '/messaging/messages/send', { body: keyed, headers: { 'idempotency-key': 'x'.repeat(201) } });
    expect([bad.statusCode, bad.json().errors[0].param]).toEqual([400, 'Idempotency-Key']);
    await socket.close();
  });

  it('keys a member\'s save too, and writes the notifications of a group message in its transaction', async () => {
    const church = makeChurch();
    const groupId = randomUUID();
    const member = t.membership.addPerson(church.churchId, { groupIds: [groupId] });
    const conv = randomUUID();
    await t.app.db.insert(conversations).values({ id: conv, churchId: church.churchId, contentType: 'group', contentId: groupId, groupId, title: 'Group chat' });
    const token = church.token([], { personId: randomUUID() });
    const post = () => call(t.app, 'POST', '/messaging/messages', { token, body: [{ conversationId: conv, content: 'Meeting moved' }], headers: { 'idempotency-key': 'save-7' } });
    const first = await post();
    const again = await post();
    expect(again.json()[0].id).toBe(first.json()[0].id);
    await t.drain();
    const notes = await t.app.db.select().from(notifications).where(eq(notifications.personId, member.id));
    expect(notes.map((n) => n.message)).toEqual([expect.stringContaining('Meeting moved')]);
  });

  it('runs several messages of one request in one transaction: the first one refused undoes the rest', async () => {
    const church = makeChurch();
    const conv = await liveChat(church.churchId);
    const res = await call(t.app, 'POST', '/messaging/messages/send', {
      body: [
        { churchId: church.churchId, conversationId: conv, content: 'first' },
        { churchId: church.churchId, conversationId: randomUUID(), content: 'nowhere' },
      ],
    });
    expect([res.statusCode, res.json().errors[0].param]).toEqual([400, '[1].conversationId']);
    expect(await t.app.db.select().from(messages).where(eq(messages.conversationId, conv))).toEqual([]);
    await eventually(async () => (await outboxRows('messaging.push')).every((r) => r.state !== 'pending'));
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
const describeRedis = redisUrl ? describe : describe.skip;

describeRedis('the push as a local job beside BullMQ (REDIS_URL)', () => {
  const r = useMessaging({ config: { REDIS_URL: redisUrl ?? '', REALTIME_REDIS_URL: redisUrl ?? '', REALTIME_PREFIX: `msg:outbox:${randomUUID().slice(0, 8)}:` } });

  it('runs in the process that posted, after the commit, retried while the fan-out fails', async () => {
    expect(r.app.deps.queue.kind).toBe('bullmq');
    const church = makeChurch();
    const conv = randomUUID();
    await r.app.db.insert(conversations).values({ id: conv, churchId: church.churchId, contentType: 'streamingLive', contentId: randomUUID(), allowAnonymousPosts: true });
    const socket = await openSocket(r.app);
    await call(r.app, 'POST', '/messaging/connections', { body: { churchId: church.churchId, conversationId: conv, socketId: socket.socketId } });
    const realtime = depsOf(r.app).providers.realtime;
    const publish = realtime.publish.bind(realtime);
    let failures = 2;
    realtime.publish = async (...args: Parameters<typeof publish>) => {
      if (failures-- > 0) throw new Error('Connection is closed.');
      return publish(...args);
    };
    try {
      const res = await call(r.app, 'POST', '/messaging/messages/send', { body: { churchId: church.churchId, conversationId: conv, content: 'over Redis' } });
      expect(res.statusCode).toBe(200);
      expect((await socket.waitFor('message')).data).toMatchObject({ id: res.json()[0].id, content: 'over Redis' });
    } finally {
      realtime.publish = publish;
      await socket.close();
    }
  });
});
