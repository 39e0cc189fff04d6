import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, readMailbox, readOutbox } from '@church/common/testing';
import { deliveryLogs, devices } from '../../src/db/schema';
import { quietFor } from '../../src/domain/quiet-hours';
import { eventually, makeChurch, useMessaging } from '../setup';

const t = useMessaging();

const clock = (d: Date) => d.toISOString().slice(11, 16);

describe('notification settings as B1App saves them', () => {
  it('B1App:src/app/[sdSlug]/mobile/components/screens/NotificationPrefsPage.tsx saves mute, quiet hours and time zone and reads them back', async () => {
    const church = makeChurch();
    const token = church.token();
    const first = await call(t.app, 'GET', '/messaging/notificationpreferences/my', { token });
    expect(first.json()).toEqual({ id: expect.any(String), churchId: church.churchId, personId: church.personId, allowPush: true, emailFrequency: 'daily', masterMute: false, quietHoursStart: null, quietHoursEnd: null, timeZone: null });
    // the page posts every field, with its category overrides (not kept here)
    const body = { allowPush: true, emailFrequency: 'individual', masterMute: true, quietHoursStart: '22:00', quietHoursEnd: '07:00', timeZone: 'America/Chicago', overrides: [] };
    const saved = await call(t.app, 'POST', '/messaging/notificationpreferences/', { token, body });
    expect(saved.json()).toEqual([{ ...first.json(), emailFrequency: 'individual', masterMute: true, quietHoursStart: '22:00', quietHoursEnd: '07:00', timeZone: 'America/Chicago' }]);
    // blank times clear the window; what an item leaves out stays
    const cleared = await call(t.app, 'POST', '/messaging/notificationpreferences/', { token, body: { quietHoursStart: '', quietHoursEnd: null } });
    expect(cleared.json()[0]).toMatchObject({ masterMute: true, quietHoursStart: null, quietHoursEnd: null, timeZone: 'America/Chicago' });
    for (const bad of [{ quietHoursStart: '25:00' }, { timeZone: 'Mars/Olympus' }]) {
      const res = await call(t.app, 'POST', '/messaging/notificationpreferences/', { token, body: bad });
      expect([res.statusCode, res.json().errors[0].param]).toEqual([400, Object.keys(bad)[0]]);
    }
  });

  it('sends a muted person neither push nor email: the notification is in the app', async () => {
    const church = makeChurch();
    const muted = t.membership.addPerson(church.churchId);
    const token = church.token([], { personId: muted.id });
    await t.app.db.insert(devices).values({ id: randomUUID(), churchId: church.churchId, personId: muted.id, appName: 'B1', pushToken: `ExponentPushToken[${muted.id}]` });
    await call(t.app, 'POST', '/messaging/notificationpreferences', { token, body: { masterMute: true, emailFrequency: 'individual' } });
    await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [muted.id], message: 'Quiet please' } });
    await t.drain();
    expect((await call(t.app, 'GET', '/messaging/notifications/my', { token })).json().map((n: { message: string }) => n.message)).toEqual(['Quiet please']);
    expect((await readOutbox<{ token: string }>(t.config.DATA_DIR, 'push')).some((p) => p.token.includes(muted.id))).toBe(false);
    expect(readMailbox(t.config).some((m) => m.to === muted.email)).toBe(false);
  });

  it('holds pushes during quiet hours until they end, in the person\'s time zone', async () => {
    const church = makeChurch();
    const sleeper = t.membership.addPerson(church.churchId);
    const token = church.token([], { personId: sleeper.id });
    await t.app.db.insert(devices).values({ id: randomUUID(), churchId: church.churchId, personId: sleeper.id, appName: 'B1', pushToken: `ExponentPushToken[${sleeper.id}]` });
    const now = new Date();
    const end = new Date(now.getTime() + 3 * 3600_000);
    await call(t.app, 'POST', '/messaging/notificationpreferences', { token, body: { quietHoursStart: clock(new Date(now.getTime() - 3600_000)), quietHoursEnd: clock(end), timeZone: 'UTC' } });
    await call(t.app, 'POST', '/messaging/notifications/create', { token: church.token(), body: { peopleIds: [sleeper.id], message: 'At dawn' } });
    const [held] = await eventually(async () => {
      const rows = await t.app.deps.database.rows<{ run_at: Date; data: { personId: string } }>(`select run_at, data from job_outbox where name = 'messaging.quietPushes'`, []);
      return rows.filter((r) => r.data.personId === sleeper.id).length ? rows.filter((r) => r.data.personId === sleeper.id) : null;
    });
    // due when the window ends (to the minute), and nothing pushed meanwhile
    expect(Math.abs(new Date(held!.run_at).getTime() - end.getTime())).toBeLessThan(61_000);
    const logs = await t.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, church.churchId), eq(deliveryLogs.personId, sleeper.id)));
    expect(logs).toEqual([]);
  });

  it('reads quiet hours that wrap past midnight, and none without a time zone', () => {
    const at = (iso: string) => new Date(iso);
    const night = { quietHoursStart: '22:00', quietHoursEnd: '07:00', timeZone: 'America/Chicago' };
    // 23:30 in Chicago (CST, UTC-6) is 05:30 UTC: quiet for 7 h 30 min
    expect(quietFor(at('2026-01-15T05:30:00Z'), night)).toBe(7.5 * 3600_000);
    expect(quietFor(at('2026-01-15T12:00:00Z'), night)).toBe(1 * 3600_000);
    expect(quietFor(at('2026-01-15T13:00:00Z'), night)).toBe(0);
    expect(quietFor(at('2026-01-15T05:30:00Z'), { ...night, timeZone: null })).toBe(0);
    expect(quietFor(at('2026-01-15T05:30:00Z'), { ...night, quietHoursEnd: '22:00' })).toBe(0);
  });
});
