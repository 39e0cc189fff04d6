import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { HttpError, changesReported, doingInternal, membershipInternal, workflowEvents, type ChangeRecord } from '@church/common';
import { call, fakeInternal } from '@church/common/testing';
import { auditLogs } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { signedCall } from './fixtures';

// What a church listens for (its webhooks' events and its workflow triggers'), which a module reporting a Sunday's
// check-ins asks before handing any of them on; and the changes such a module reports only as events.
const triggers = new Map<string, string[]>();
const doing = { away: false };
const internal = fakeInternal({
  [`POST ${doingInternal.triggerEvents.path}`]: (body: { churchId: string }) => {
    if (doing.away) throw new HttpError(503, [{ msg: 'The service is briefly unavailable; try again shortly' }]);
    return { events: triggers.get(body.churchId) ?? [] };
  },
});
const t = useMembership({ config: { OUTBOUND_ALLOW_PRIVATE: 'true' }, overrides: { internal } });

const listened = (churchId: string) => signedCall(t, membershipInternal.listenedEvents.path, { churchId });
const hook = (token: string, events: string[], active = true) =>
  call(t.app, 'POST', '/membership/webhooks', { token, body: { name: 'Hook', url: 'https://hooks.example.org/in', events, active } });

describe('POST /membership/internal/events/listened', () => {
  it("answers the church's active webhooks' events and its workflow triggers' events, each once", async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const admin = c.token(['Settings.Edit']);
    expect((await hook(admin, ['attendance.recorded', 'person.created'])).statusCode).toBe(200);
    expect((await hook(admin, ['person.created', 'group.created'])).statusCode).toBe(200);
    expect((await hook(admin, ['donation.created'], false)).statusCode).toBe(200);
    await hook(other.token(['Settings.Edit']), ['session.created']);
    triggers.set(c.churchId, ['attendance.recorded', 'form.submission.created']);
    const res = await listened(c.churchId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ events: ['attendance.recorded', 'form.submission.created', 'group.created', 'person.created'] });
    expect((await listened(randomUUID())).json()).toEqual({ events: [] });
  });

  it('answers 503 when doing cannot say, so the caller hands every event on', async () => {
    const c = await makeChurch(t);
    doing.away = true;
    try {
      const res = await listened(c.churchId);
      expect(res.statusCode).toBe(503);
    } finally {
      doing.away = false;
    }
  });
});

describe('membership.changes of changes reported only as events', () => {
  it('writes no audit line for them and still hands them to workflow triggers', async () => {
    const c = await makeChurch(t);
    const visitId = randomUUID();
    const at = new Date().toISOString();
    const record = (entityId: string, logged?: false): ChangeRecord => ({
      churchId: c.churchId,
      module: 'attendance',
      entityType: 'visit',
      entityId,
      action: 'checkedIn',
      event: 'attendance.recorded',
      at,
      changes: {},
      data: { id: entityId },
      ...(logged === false ? { logged } : {}),
    });
    const loggedId = randomUUID();
    await t.deps.queue.enqueue(changesReported, { records: [record(visitId, false), record(loggedId)] });
    await t.drain();
    const lines = await t.app.db.select().from(auditLogs).where(eq(auditLogs.churchId, c.churchId));
    expect(lines.map((l) => l.entityId)).toEqual([loggedId]);
    const forwarded = t.deps.queue.handedOff
      .filter((j) => j.name === workflowEvents.name)
      .flatMap((j) => (j.data as { records: ChangeRecord[] }).records)
      .filter((r) => r.churchId === c.churchId);
    expect(forwarded.map((r) => r.entityId).sort()).toEqual([visitId, loggedId].sort());
  });
});
