import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { notifications } from '../../src/db/schema';
import { makeChurch, sleep, useMessaging } from '../setup';

// Three a minute, so the tests reach the bounds quickly.
const t = useMessaging({ config: { NOTIFY_RATE_PER_MINUTE: '3', PING_RATE_PER_MINUTE: '3' } });

/** Starts a count's test early enough in the minute that the count is not reset half-way. */
async function freshMinute() {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < 5) await sleep(left * 1000 + 50);
}

const notificationsOf = (personIds: string[]) => t.app.db.select().from(notifications).where(inArray(notifications.personId, personIds));

describe('who can notify whom', () => {
  it('lets a member notify people of the church only: any other id is a 400 naming it, and nobody is notified', async () => {
    const church = makeChurch();
    const mine = t.membership.addPerson(church.churchId);
    const theirs = t.membership.addPerson(makeChurch().churchId);
    const unknown = randomUUID();
    const res = await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [mine.id, theirs.id, unknown], message: 'Hello' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { msg: 'No person of this church has this id', param: 'peopleIds[1]', location: 'body' },
      { msg: 'No person of this church has this id', param: 'peopleIds[2]', location: 'body' },
    ]);
    expect(await notificationsOf([mine.id, theirs.id, unknown])).toEqual([]);
    // membership is asked for the church's people, once
    expect(t.membership.calls.at(-1)).toMatchObject({ path: '/membership/internal/people/contacts', body: { churchId: church.churchId, ids: [mine.id, theirs.id, unknown] } });
    const ok = await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [mine.id], message: 'Hello' } });
    expect(ok.statusCode).toBe(200);
    expect((await notificationsOf([mine.id])).map((n) => [n.churchId, n.message])).toEqual([[church.churchId, 'Hello']]);
    // People.Edit writes anyone's notification: anyone of the church
    const staff = await call(t.app, 'POST', '/messaging/notifications', { token: church.token(['People.Edit']), body: [{ personId: mine.id, message: 'Staff' }, { personId: theirs.id, message: 'Staff' }] });
    expect([staff.statusCode, staff.json().errors]).toEqual([400, [{ msg: 'No person of this church has this id', param: '[1].personId', location: 'body' }]]);
    expect(await notificationsOf([theirs.id])).toEqual([]);
    expect((await notificationsOf([mine.id])).map((n) => n.message)).toEqual(['Hello']);
  });

  it('counts each caller\'s calls a minute: past the bound a 429 with Retry-After, and nothing written; other callers go on', async () => {
    await freshMinute();
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId);
    const caller = church.tokenOf(randomUUID());
    for (let i = 0; i < 3; i++) expect((await call(t.app, 'POST', '/messaging/notifications/create', { token: caller, body: { peopleIds: [person.id], message: `n${i}` } })).statusCode).toBe(200);
    const refused = await call(t.app, 'POST', '/messaging/notifications/create', { token: caller, body: { peopleIds: [person.id], message: 'one too many' } });
    expect([refused.statusCode, refused.json().errors[0]]).toEqual([429, 'Too many requests, try again later']);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await notificationsOf([person.id])).map((n) => n.message).sort()).toEqual(['n0', 'n1', 'n2']);
    const other = await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [person.id], message: 'from someone else' } });
    expect(other.statusCode).toBe(200);
  });

  it('rings a person\'s alerts only for a person of that church, so many a minute per church', async () => {
    await freshMinute();
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId);
    const stranger = t.membership.addPerson(makeChurch().churchId);
    for (const personId of [randomUUID(), stranger.id]) {
      const res = await call(t.app, 'POST', '/messaging/connections/tmpSendAlert', { body: { churchId: church.churchId, personId } });
      expect([res.statusCode, res.json().errors[0]]).toEqual([404, 'Person not found']);
    }
    expect((await call(t.app, 'POST', '/messaging/connections/tmpSendAlert', { body: { churchId: church.churchId, personId: person.id } })).statusCode).toBe(200);
    const res = await call(t.app, 'POST', '/messaging/connections/tmpSendAlert', { body: { churchId: church.churchId, personId: person.id } });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await t.app.db.select().from(notifications).where(eq(notifications.churchId, church.churchId))).toEqual([]);
  });
});
