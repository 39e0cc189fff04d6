import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, readOutbox } from '@church/common/testing';
import { depsOf } from '../../src/deps';
import { deliveryLogs, notifications, reminderOccurrences } from '../../src/db/schema';
import { expandDefinition, refreshAll, scanDue, sendDue } from '../../src/domain/reminder-schedule';
import { zonedInstant } from '@church/common';
import { makeChurch, useMessaging } from '../setup';

const t = useMessaging();
const DAY = 86_400_000;

/** Content's events and registrations, and doing's plans and tasks, as their contracts answer them. */
interface FakeEvent {
  churchId: string;
  id: string;
  groupId: string | null;
  title: string;
  registrationEnabled: boolean;
  starts: string[];
  registrants?: string[];
  attendees?: Array<{ personId: string | null }>;
}
const events = new Map<string, FakeEvent>();
const planTypes = new Map<string, { churchId: string; name: string }>();
const plans = new Map<string, { churchId: string; planTypeId: string; name: string; serviceDate: string; personIds: string[] }>();
const tasks = new Map<string, { churchId: string; title: string; dueDate: string | null; status: string; assignedToType: string; assignedToId: string }>();

beforeAll(() => {
  const r = t.membership.routes;
  r['POST /content/internal/events/occurrences'] = (b) => {
    const e = events.get(b.eventId as string);
    if (!e || e.churchId !== b.churchId) return { event: null, starts: [] };
    const [from, to] = [Date.parse(b.from as string), Date.parse(b.to as string)];
    return { event: { id: e.id, groupId: e.groupId, title: e.title, registrationEnabled: e.registrationEnabled }, starts: e.starts.filter((s) => Date.parse(s) >= from && Date.parse(s) < to) };
  };
  r['POST /content/internal/events/registrations'] = (b) => {
    const e = events.get(b.eventId as string)!;
    return { registrants: e.registrants ?? [], attendees: e.attendees ?? [] };
  };
  r['POST /doing/internal/planTypes/plans'] = (b) => {
    const type = planTypes.get(b.planTypeId as string);
    if (!type || type.churchId !== b.churchId) return { planType: null, plans: [] };
    const list = [...plans.entries()].filter(([, p]) => p.planTypeId === b.planTypeId && p.serviceDate >= (b.from as string) && p.serviceDate <= (b.to as string));
    return { planType: { id: b.planTypeId, name: type.name }, plans: list.map(([id, p]) => ({ id, name: p.name, serviceDate: p.serviceDate, planTypeId: p.planTypeId })) };
  };
  r['POST /doing/internal/plans/people'] = (b) => {
    const p = plans.get(b.planId as string);
    if (!p || p.churchId !== b.churchId) return { plan: null, personIds: [] };
    return { plan: { id: b.planId, name: p.name, serviceDate: p.serviceDate, planTypeId: p.planTypeId }, personIds: p.personIds };
  };
  r['POST /doing/internal/tasks/one'] = (b) => {
    const x = tasks.get(b.taskId as string);
    if (!x || x.churchId !== b.churchId) return { task: null };
    return { task: { id: b.taskId, title: x.title, status: x.status, dueDate: x.dueDate, assignedToType: x.assignedToType, assignedToId: x.assignedToId } };
  };
});

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** An event of a group in `days` days at 19:00 UTC, with two members (one with an email address). */
function groupEvent(church: ReturnType<typeof makeChurch>, days = 3, extra: Partial<FakeEvent> = {}) {
  const groupId = randomUUID();
  const members = [t.membership.addPerson(church.churchId, { groupIds: [groupId] }), t.membership.addPerson(church.churchId, { groupIds: [groupId], email: null })];
  const event: FakeEvent = { churchId: church.churchId, id: randomUUID(), groupId, title: 'Youth Night', registrationEnabled: false, starts: [`${day(Date.now() + days * DAY)}T19:00:00.000Z`], ...extra };
  events.set(event.id, event);
  return { event, groupId, members };
}

const editor = (church: ReturnType<typeof makeChurch>) => church.token(['Content.Edit']);
// B1Admin's EventReminderEdit, as it saves
const APP_BODY = { offsets: '1440,0', sendLocalTime: '09:00', channels: ['push', 'email'], recipientMode: 'group', enabled: true };

async function saveEventReminder(church: ReturnType<typeof makeChurch>, eventId: string, body: object = APP_BODY, token = editor(church)) {
  const res = await call(t.app, 'POST', `/messaging/reminders/event/${eventId}`, { token, body });
  await t.drain();
  return res;
}

const occurrencesOf = (churchId: string) => t.app.db.select().from(reminderOccurrences).where(eq(reminderOccurrences.churchId, churchId)).orderBy(reminderOccurrences.fireAt);
const notificationsOf = (churchId: string) => t.app.db.select().from(notifications).where(eq(notifications.churchId, churchId));

describe('event reminders as B1Admin and B1App edit them', () => {
  it('B1Admin:src/calendars/components/EventReminderEdit.tsx saves a reminder and reads it back as defs[0]', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    const res = await saveEventReminder(church, event.id);
    expect(res.statusCode).toBe(200);
    const saved = res.json();
    expect(saved).toEqual({
      id: expect.any(String),
      churchId: church.churchId,
      entityType: 'event',
      entityId: event.id,
      scopeId: null,
      offsets: '1440,0',
      sendLocalTime: '09:00:00',
      timeZone: null,
      message: null,
      channels: 'push,email',
      recipientMode: 'group',
      enabled: true,
      dateCreated: expect.any(String),
      dateModified: expect.any(String),
    });
    const read = await call(t.app, 'GET', `/messaging/reminders/event/${event.id}`, { token: editor(church) });
    expect(read.json()).toEqual([saved]);
    // the reminders planned: a day before and the day of, at 09:00 on the church's clock (UTC until membership says)
    const start = Date.parse(event.starts[0]!);
    expect((await occurrencesOf(church.churchId)).map((o) => [o.fireAt.toISOString(), o.offsetMinutes, o.status])).toEqual([
      [`${day(start - DAY)}T09:00:00.000Z`, 1440, 'pending'],
      [`${day(start)}T09:00:00.000Z`, 0, 'pending'],
    ]);
    // saving again keeps the one reminder of the event and plans it anew
    const again = await saveEventReminder(church, event.id, { ...APP_BODY, offsets: '10080,1440' });
    expect(again.json().id).toBe(saved.id);
    expect(again.json().offsets).toBe('10080,1440');
    expect((await occurrencesOf(church.churchId)).map((o) => o.offsetMinutes)).toEqual([1440]); // a week before is past
  });

  it('B1App:src/app/[sdSlug]/mobile/components/group/EventReminderEdit.tsx: a leader of the event\'s group sets it, no one else', async () => {
    const church = makeChurch();
    const { event, groupId } = groupEvent(church);
    const leader = church.token([], { leaderGroupIds: [groupId] });
    expect((await saveEventReminder(church, event.id, APP_BODY, leader)).statusCode).toBe(200);
    const otherLeader = church.token([], { leaderGroupIds: [randomUUID()] });
    const refused = await saveEventReminder(church, event.id, APP_BODY, otherLeader);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errors[0]).toMatch(/leader of the event's group/);
    expect((await call(t.app, 'GET', `/messaging/reminders/event/${event.id}`, { token: otherLeader })).statusCode).toBe(401);
    expect((await saveEventReminder(church, event.id, APP_BODY, church.token())).statusCode).toBe(401);
  });

  it('another church\'s event is a 404 and nothing is written', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    const other = makeChurch();
    const res = await saveEventReminder(other, event.id);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0]).toBe('Event not found');
    expect(await occurrencesOf(other.churchId)).toEqual([]);
    expect((await call(t.app, 'GET', `/messaging/reminders/event/${event.id}`, { token: editor(other) })).json()).toEqual([]);
  });

  it('refuses what it cannot keep, naming the field', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    for (const [body, param] of [
      [{ ...APP_BODY, offsets: '' }, 'offsets'],
      [{ ...APP_BODY, offsets: '1440,999999' }, 'offsets'],
      [{ ...APP_BODY, sendLocalTime: '25:00' }, 'sendLocalTime'],
      [{ ...APP_BODY, channels: ['pigeon'] }, 'channels'],
      [{ ...APP_BODY, timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ ...APP_BODY, recipientMode: 'everyone' }, 'recipientMode'],
    ] as const) {
      const res = await saveEventReminder(church, event.id, body);
      expect([param, res.statusCode]).toEqual([param, 400]);
      expect(res.json().errors[0].param).toContain(param);
    }
    expect((await call(t.app, 'GET', `/messaging/reminders/event/${event.id}`, { token: editor(church) })).json()).toEqual([]);
  });

  it('B1Admin:src/calendars/components/EventReminderEdit.tsx reads recipientCount, unlinkedAttendeeCount and nextFires from the preview', async () => {
    const church = makeChurch();
    const { event, members } = groupEvent(church, 5, { registrationEnabled: true });
    event.registrants = [members[0]!.id];
    event.attendees = [{ personId: members[0]!.id }, { personId: members[1]!.id }, { personId: null }];
    const start = Date.parse(event.starts[0]!);
    const q = new URLSearchParams({ recipientMode: 'group', offsets: '1440', sendLocalTime: '09:00' });
    const group = await call(t.app, 'GET', `/messaging/reminders/event/${event.id}/preview?${q}`, { token: editor(church) });
    expect(group.json()).toEqual({ recipientMode: 'group', recipientCount: 2, scope: 'group', unlinkedAttendeeCount: 0, nextFires: [`${day(start - DAY)}T09:00:00.000Z`] });
    q.set('recipientMode', 'registrants');
    expect((await call(t.app, 'GET', `/messaging/reminders/event/${event.id}/preview?${q}`, { token: editor(church) })).json()).toMatchObject({ recipientCount: 2, scope: 'registrants', unlinkedAttendeeCount: 1 });
    q.set('recipientMode', 'registrantsHoh');
    expect((await call(t.app, 'GET', `/messaging/reminders/event/${event.id}/preview?${q}`, { token: editor(church) })).json()).toMatchObject({ recipientCount: 1 });
    // a time zone moves the send to 09:00 on that clock
    q.set('timeZone', 'America/Chicago');
    const chicago = (await call(t.app, 'GET', `/messaging/reminders/event/${event.id}/preview?${q}`, { token: editor(church) })).json();
    expect(chicago.nextFires).toEqual([zonedInstant(day(start - DAY), '09:00', 'America/Chicago').toISOString()]);
    expect((await call(t.app, 'GET', `/messaging/reminders/event/${event.id}/preview`, { token: church.token() })).statusCode).toBe(401);
  });
});

describe('the reminder scheduler', () => {
  it('sends a due reminder once, to the group, through the notification escalation with its channels', async () => {
    const church = makeChurch();
    const { event, members } = groupEvent(church);
    await saveEventReminder(church, event.id, { ...APP_BODY, offsets: '1440', message: "Don't miss it! {{eventTitle}} starts soon" });
    const [occ] = await occurrencesOf(church.churchId);
    const deps = depsOf(t.app);
    // the scheduler serves every church: this church's reminder is what the test follows
    await scanDue(deps, new Date(occ!.fireAt.getTime() - 60_000));
    expect((await occurrencesOf(church.churchId))[0]!.status).toBe('pending');
    expect(await scanDue(deps, new Date(occ!.fireAt.getTime() + 1000))).toBeGreaterThanOrEqual(1);
    await t.drain();
    const sent = await notificationsOf(church.churchId);
    expect(sent.map((n) => n.personId).sort()).toEqual(members.map((m) => m.id).sort());
    expect(sent[0]).toMatchObject({ message: "Don't miss it! Youth Night starts soon", contentType: 'event', contentId: event.id, link: `/mobile/groups/${event.groupId}?activeTab=events` });
    expect((await occurrencesOf(church.churchId))[0]).toMatchObject({ status: 'sent', recipientCount: 2 });
    // email at once (not the digest) for the member with an address; the other is logged skipped
    const mails = await t.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, church.churchId), eq(deliveryLogs.channel, 'email')));
    expect(mails.map((m) => m.status).sort()).toEqual(['queued', 'skipped']);
    // once: another scan finds nothing, the job run again does nothing
    await scanDue(deps, new Date(occ!.fireAt.getTime() + 120_000));
    expect(await sendDue(deps, church.churchId, occ!.id)).toBeNull();
    await t.drain();
    expect(await notificationsOf(church.churchId)).toHaveLength(2);
  });

  it('push only: no mail, and kept out of the digest', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    await saveEventReminder(church, event.id, { ...APP_BODY, offsets: '0', channels: ['push'] });
    const [occ] = await occurrencesOf(church.churchId);
    await scanDue(depsOf(t.app), new Date(occ!.fireAt.getTime() + 1000));
    await t.drain();
    const sent = await notificationsOf(church.churchId);
    expect(sent).toHaveLength(2);
    expect(sent.every((n) => n.emailedAt)).toBe(true);
    expect(await t.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, church.churchId), eq(deliveryLogs.channel, 'email')))).toEqual([]);
  });

  it('a reminder of an event that moved is not sent; the next planning follows the event', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    await saveEventReminder(church, event.id, { ...APP_BODY, offsets: '1440' });
    const [occ] = await occurrencesOf(church.churchId);
    event.starts = [`${day(Date.parse(event.starts[0]!) + DAY)}T19:00:00.000Z`];
    await scanDue(depsOf(t.app), new Date(occ!.fireAt.getTime() + 1000));
    await t.drain();
    expect(await notificationsOf(church.churchId)).toEqual([]);
    expect((await occurrencesOf(church.churchId))[0]!.status).toBe('cancelled');
    await expandDefinition(depsOf(t.app), church.churchId, occ!.definitionId);
    const now = await occurrencesOf(church.churchId);
    expect(now.map((o) => [o.occurrence, o.status])).toEqual([
      [occ!.occurrence, 'cancelled'],
      [event.starts[0], 'pending'],
    ]);
  });

  it('a reminder claimed only after its event began is missed, not sent', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    await saveEventReminder(church, event.id, { ...APP_BODY, offsets: '0' });
    await scanDue(depsOf(t.app), new Date(Date.parse(event.starts[0]!) + 60_000));
    await t.drain();
    expect((await occurrencesOf(church.churchId))[0]!.status).toBe('missed');
    expect(await notificationsOf(church.churchId)).toEqual([]);
  });

  it('the hourly refresh plans every enabled reminder once per hour', async () => {
    const church = makeChurch();
    const { event } = groupEvent(church);
    await saveEventReminder(church, event.id, { ...APP_BODY, offsets: '1440' });
    const before = (await occurrencesOf(church.churchId)).length;
    event.starts.push(`${day(Date.now() + 4 * DAY)}T19:00:00.000Z`);
    const now = new Date();
    expect(await refreshAll(depsOf(t.app), now)).toBeGreaterThanOrEqual(1);
    await t.drain();
    expect(await occurrencesOf(church.churchId)).toHaveLength(before + 1);
  });

  it('keeps the church\'s clock across a change of daylight saving time', () => {
    expect(zonedInstant('2026-03-07', '09:00', 'America/Chicago').toISOString()).toBe('2026-03-07T15:00:00.000Z');
    expect(zonedInstant('2026-03-08', '09:00', 'America/Chicago').toISOString()).toBe('2026-03-08T14:00:00.000Z');
    // a day before 09:00 on the day the clocks change is 09:00 of the day before, not 24 hours before
    expect(zonedInstant('2026-03-09', '09:00:00', 'America/Chicago', 1440).toISOString()).toBe('2026-03-08T14:00:00.000Z');
    // the hour that happens twice is its first; the one that never happens moves on
    expect(zonedInstant('2026-11-01', '01:30', 'America/Chicago').toISOString()).toBe('2026-11-01T06:30:00.000Z');
    expect(zonedInstant('2026-03-08', '02:30', 'America/Chicago').toISOString()).toBe('2026-03-08T08:30:00.000Z');
  });
});

describe('plan type and task reminders', () => {
  it('B1Admin:src/serving/components/PlanTypeReminderEdit.tsx: a plan type\'s reminder goes to each of its plans\' people', async () => {
    const church = makeChurch();
    const typeId = randomUUID();
    planTypes.set(typeId, { churchId: church.churchId, name: 'Sunday' });
    const [a, b] = [t.membership.addPerson(church.churchId), t.membership.addPerson(church.churchId)];
    const planId = randomUUID();
    plans.set(planId, { churchId: church.churchId, planTypeId: typeId, name: 'Sunday Service', serviceDate: day(Date.now() + 2 * DAY), personIds: [a.id, b.id] });
    const token = church.token(['Plans.Edit']);
    const body = { offsets: '1440', sendLocalTime: '09:00', channels: ['push'], recipientMode: 'assignments', enabled: true };
    const res = await call(t.app, 'POST', `/messaging/reminders/scope/plan/${typeId}`, { token, body });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ entityType: 'plan', entityId: null, scopeId: typeId, recipientMode: 'assignments', channels: 'push' });
    await t.drain();
    expect((await call(t.app, 'GET', `/messaging/reminders/scope/plan/${typeId}`, { token })).json()[0].id).toBe(res.json().id);
    const [occ] = await occurrencesOf(church.churchId);
    expect(occ).toMatchObject({ entityId: planId, occurrence: day(Date.now() + 2 * DAY), offsetMinutes: 1440 });
    await scanDue(depsOf(t.app), new Date(occ!.fireAt.getTime() + 1000));
    await t.drain();
    const sent = await notificationsOf(church.churchId);
    expect(sent.map((n) => n.personId).sort()).toEqual([a.id, b.id].sort());
    expect(sent[0]).toMatchObject({ contentType: 'plan', contentId: planId, link: `/mobile/plans/${planId}`, message: expect.stringMatching(/^Reminder: you're serving at Sunday Service on /) });
    // the pushes went out titled as a reminder
    const pushes = await readOutbox<{ title: string }>(t.config.DATA_DIR, 'push');
    expect(pushes.every((p) => p.title)).toBe(true);
    // another church's plan type: 404; without Plans.Edit or Content.Edit: 401
    expect((await call(t.app, 'POST', `/messaging/reminders/scope/plan/${typeId}`, { token: makeChurch().token(['Plans.Edit']), body })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/messaging/reminders/scope/plan/${typeId}`, { token: church.token(), body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/messaging/reminders/scope/plan/${typeId}`, { token, body: { ...body, recipientMode: 'group' } })).json().errors[0].param).toBe('recipientMode');
  });

  it('B1Admin:src/serving/tasks/components/TaskReminderEdit.tsx: a task\'s reminder reaches its assignee; DELETE removes it', async () => {
    const church = makeChurch();
    const assignee = t.membership.addPerson(church.churchId);
    const taskId = randomUUID();
    const due = day(Date.now() + 3 * DAY);
    tasks.set(taskId, { churchId: church.churchId, title: 'Order chairs', dueDate: due, status: 'Open', assignedToType: 'person', assignedToId: assignee.id });
    const token = church.token(['Content.Edit']);
    // as TaskReminderEdit sends it: no recipientMode
    const res = await call(t.app, 'POST', `/messaging/reminders/task/${taskId}`, { token, body: { offsets: '1440', sendLocalTime: '08:30', channels: ['push', 'email'], enabled: true } });
    expect(res.json()).toMatchObject({ entityType: 'task', entityId: taskId, recipientMode: 'assignee', sendLocalTime: '08:30:00' });
    await t.drain();
    const [occ] = await occurrencesOf(church.churchId);
    expect(occ!.fireAt.toISOString()).toBe(`${day(Date.parse(due) - DAY)}T08:30:00.000Z`);
    await scanDue(depsOf(t.app), new Date(occ!.fireAt.getTime() + 1000));
    await t.drain();
    expect((await notificationsOf(church.churchId)).map((n) => [n.personId, n.message])).toEqual([[assignee.id, expect.stringMatching(/^Reminder: "Order chairs" is due /)]]);

    const id = res.json().id as string;
    expect((await call(t.app, 'DELETE', `/messaging/reminders/${id}`, { token: makeChurch().token(['Content.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/messaging/reminders/${id}`, { token: church.token(['Plans.Edit'], { leaderGroupIds: [] }) })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/messaging/reminders/task/${taskId}`, { token })).json()).toEqual([]);
    expect(await occurrencesOf(church.churchId)).toEqual([]);
    expect((await call(t.app, 'POST', `/messaging/reminders/task/${randomUUID()}`, { token, body: { offsets: '0' } })).statusCode).toBe(404);
  });

  it('B1Admin:src/calendars/components/EventReminderEdit.tsx turns a reminder off with DELETE /reminders/:id; a leader removes only their group\'s', async () => {
    const church = makeChurch();
    const { event, groupId } = groupEvent(church);
    const saved = (await saveEventReminder(church, event.id)).json();
    const other = church.token([], { leaderGroupIds: [randomUUID()] });
    expect((await call(t.app, 'DELETE', `/messaging/reminders/${saved.id}`, { token: other })).statusCode).toBe(401);
    const leader = church.token([], { leaderGroupIds: [groupId] });
    const res = await call(t.app, 'DELETE', `/messaging/reminders/${saved.id}`, { token: leader });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect(await occurrencesOf(church.churchId)).toEqual([]);
  });
});
