import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import ical, { type CalendarComponent, type VEvent } from 'node-ical';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();

const sunday = { start: '2026-01-04T16:00:00.000Z', end: '2026-01-04T17:30:00.000Z' };

describe('POST /content/events', () => {
  it('saves events of a group for editors and leaders of the group only; checks rules and dates', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Worship', ...sunday, recurrenceRule: 'RRULE:freq=weekly;byday=SU' } });
    expect(ev).toMatchObject({ groupId, title: 'Worship', allDay: false, visibility: 'public', recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU', exceptionDates: [], start: sunday.start });
    const leader = c.token([], { leaderGroupIds: [groupId] });
    await ok(t.app, 'POST', '/content/events', { token: leader, body: { groupId, title: 'Leader event', ...sunday } });
    const notLeader = await call(t.app, 'POST', '/content/events', { token: c.anyone, body: { groupId, title: 'x', ...sunday } });
    expect(notLeader.statusCode).toBe(401);
    const badRule = await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId, title: 'x', ...sunday, recurrenceRule: 'FREQ=SOMETIMES' }] });
    expect(badRule.json().errors[0]).toMatchObject({ param: '[0].recurrenceRule' });
    const backwards = await call(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'x', start: sunday.end, end: sunday.start } });
    expect(backwards.json().errors[0]).toMatchObject({ param: 'end' });
    expect((await call(t.app, 'POST', '/content/events', { token: c.editor, body: {} })).json().errors[0]).toMatchObject({ param: 'groupId' });
    const [updated] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { id: ev.id, title: 'Sunday Worship' } });
    expect(updated).toMatchObject({ id: ev.id, title: 'Sunday Worship', recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU' });
    expect((await call(t.app, 'POST', '/content/events', { token: church().editor, body: { id: ev.id, title: 'stolen' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/events/${ev.id}`, { token: leader })).statusCode).toBe(401);
    await ok(t.app, 'DELETE', `/content/events/${ev.id}`, { token: c.editor });
    expect((await call(t.app, 'GET', `/content/events/${ev.id}`, { token: c.editor })).statusCode).toBe(404);
    // Saves and deletes are the webhook events event.created / .updated / .destroyed, reported in their transactions.
    await t.drain();
    const records = t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);
    const mine = records.filter((r) => r.churchId === c.churchId && r.entityId === ev.id);
    expect(mine.map((r) => r.event).sort()).toEqual(['event.created', 'event.destroyed', 'event.updated']);
    expect(mine.find((r) => r.event === 'event.updated')!.changes).toEqual({ title: { before: 'Worship', after: 'Sunday Worship' } });
  });
});

describe('event registration as the apps use it', () => {
  it('B1Admin:src/registrations/components/RegistrationSettingsEdit.tsx posts the event back with its registration settings, read back as sent', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: '', groupId, title: 'Retreat', ...sunday }] });
    expect(ev).toMatchObject({ registrationEnabled: false, capacity: null, waitlistEnabled: false, registrationOpenDate: null, registrationCloseDate: null, tags: null, formId: null });
    const formId = randomUUID();
    const settings = { registrationEnabled: true, waitlistEnabled: true, capacity: 40, registrationOpenDate: '2025-12-01T00:00:00.000Z', registrationCloseDate: '2026-01-03T00:00:00.000Z', tags: 'youth,camp', formId };
    const [saved] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ ...ev, ...settings }] });
    expect(saved).toEqual({ ...ev, ...settings });
    // Switching registration off sends nulls for what it clears.
    const [off] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ ...saved, registrationEnabled: false, capacity: null, formId: null, registrationOpenDate: null }] });
    expect(off).toMatchObject({ registrationEnabled: false, capacity: null, formId: null, registrationOpenDate: null, registrationCloseDate: settings.registrationCloseDate });
    const backwards = await call(t.app, 'POST', '/content/events', { token: c.editor, body: { id: ev.id, registrationOpenDate: '2026-01-04T00:00:00.000Z' } });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().errors[0]).toMatchObject({ param: 'registrationCloseDate' });
  });

  it('B1Admin:src/registrations/RegistrationsPage.tsx and B1App GroupsPage.tsx read GET /events/registerable (the literal route, not /:id)', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const soon = { start: new Date(Date.now() + 7 * 86_400_000).toISOString(), end: new Date(Date.now() + 7 * 86_400_000 + 3_600_000).toISOString() };
    const [upcoming, past, closed, weekly] = await ok(t.app, 'POST', '/content/events', {
      token: c.editor,
      body: [
        { groupId, title: 'Upcoming', ...soon, registrationEnabled: true, capacity: 10, tags: 'youth' },
        { groupId, title: 'Past', ...sunday, registrationEnabled: true },
        { groupId, title: 'Closed', ...soon, start: new Date(Date.now() + 7 * 86_400_000 + 60_000).toISOString(), registrationEnabled: true, registrationCloseDate: new Date(Date.now() - 60_000).toISOString() },
        { groupId, title: 'Weekly class', start: '2026-01-04T18:00:00.000Z', end: '2026-01-04T19:00:00.000Z', recurrenceRule: 'FREQ=WEEKLY', registrationEnabled: true },
        { groupId, title: 'No sign-up', ...soon },
      ],
    });
    const res = await call(t.app, 'GET', '/content/events/registerable', { token: c.editor });
    expect(res.statusCode).toBe(200);
    // Editors manage every event with registration, by start (the counts page reads id, churchId, title, start, capacity, tags).
    expect(res.json().map((e: { id: string }) => e.id)).toEqual([past.id, weekly.id, upcoming.id, closed.id]);
    expect(res.json()[2]).toMatchObject({ id: upcoming.id, churchId: c.churchId, title: 'Upcoming', start: soon.start, capacity: 10, tags: 'youth', registrationEnabled: true });
    // Members are offered what they can still register for.
    expect((await ok(t.app, 'GET', '/content/events/registerable', { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([weekly.id, upcoming.id]);
    expect(await ok(t.app, 'GET', '/content/events/registerable', { token: church().editor })).toEqual([]);
    expect((await call(t.app, 'GET', '/content/events/registerable')).statusCode).toBe(401);
    // A real id still reads the event.
    expect(await ok(t.app, 'GET', `/content/events/${upcoming.id}`, { token: c.anyone })).toMatchObject({ id: upcoming.id, capacity: 10 });
  });
});

describe('GET /content/events/holidays', () => {
  it('B1Admin:src/groups/components/BulkGroupEventsModal.tsx reads {date, name} of the window (the literal route, not /:id)', async () => {
    const c = church();
    // across a year's end, both days included
    expect(await ok(t.app, 'GET', '/content/events/holidays?start=2026-12-20&end=2027-01-01', { token: c.anyone })).toEqual([
      { date: '2026-12-24', name: 'Christmas Eve' },
      { date: '2026-12-25', name: 'Christmas Day' },
      { date: '2026-12-31', name: "New Year's Eve" },
      { date: '2027-01-01', name: "New Year's Day" },
    ]);
    // the movable ones: Easter and Good Friday, the nth and last Mondays, the fourth Thursday
    const year = await ok(t.app, 'GET', '/content/events/holidays?start=2027-01-01&end=2027-12-31', { token: c.anyone });
    expect(year).toHaveLength(13);
    expect(Object.fromEntries(year.map((h: { date: string; name: string }) => [h.name, h.date]))).toMatchObject({
      'Martin Luther King Jr. Day': '2027-01-18',
      "Presidents' Day": '2027-02-15',
      'Good Friday': '2027-03-26',
      'Easter Sunday': '2027-03-28',
      'Memorial Day': '2027-05-31',
      Juneteenth: '2027-06-19',
      'Independence Day': '2027-07-04',
      'Labor Day': '2027-09-06',
      Thanksgiving: '2027-11-25',
    });
    expect(year.map((h: { date: string }) => h.date)).toEqual([...year.map((h: { date: string }) => h.date)].sort());
    expect(await ok(t.app, 'GET', '/content/events/holidays?start=2026-08-01&end=2026-08-31', { token: c.anyone })).toEqual([]);
    // an ISO date-time names its day; no window: from today to a year on (13 holidays)
    expect(await ok(t.app, 'GET', '/content/events/holidays?start=2026-07-04T18:00:00.000Z&end=2026-07-04T20:00:00.000Z', { token: c.anyone })).toEqual([{ date: '2026-07-04', name: 'Independence Day' }]);
    expect(await ok(t.app, 'GET', '/content/events/holidays', { token: c.anyone })).toHaveLength(13);
    // bad windows are 400s naming the field; no token is a 401
    const bad = async (q: string, param: string) => {
      const res = await call(t.app, 'GET', `/content/events/holidays?${q}`, { token: c.anyone });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ param, location: 'query' });
    };
    await bad('start=soon&end=2026-12-31', 'start');
    await bad('start=2026-02-30&end=2026-12-31', 'start');
    await bad('start=2026-12-31&end=2026-01-01', 'end');
    await bad('start=2026-01-01&end=2040-01-01', 'end');
    expect((await call(t.app, 'GET', '/content/events/holidays?start=2026-12-20&end=2027-01-01')).statusCode).toBe(401);
  });
});

describe('events of groups, exceptions and timelines', () => {
  it('answers group events with exception dates, public events only in public, and timelines of the caller groups', async () => {
    const c = church();
    const g1 = t.membership.group(c.churchId);
    const g2 = t.membership.group(c.churchId);
    const [open, hidden, other] = await ok(t.app, 'POST', '/content/events', {
      token: c.editor,
      body: [
        { groupId: g1, title: 'Open', ...sunday, recurrenceRule: 'FREQ=WEEKLY', end: '2099-01-01T00:00:00.000Z' },
        { groupId: g1, title: 'Hidden', ...sunday, visibility: 'private', end: '2099-01-01T00:00:00.000Z' },
        { groupId: g2, title: 'Other', ...sunday, end: '2099-01-01T00:00:00.000Z' },
      ],
    });
    const [ex] = await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { eventId: open.id, exceptionDate: '2026-01-11T16:00:00.000Z' } });
    expect(await ok(t.app, 'GET', `/content/eventExceptions/${ex.id}`, { token: c.anyone })).toEqual(ex);
    // by id: the date moves; another church's id is a 404
    const [movedEx] = await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { id: ex.id, exceptionDate: '2026-01-18T16:00:00.000Z' } });
    expect(movedEx).toMatchObject({ id: ex.id, eventId: open.id, exceptionDate: '2026-01-18T16:00:00.000Z' });
    expect((await call(t.app, 'POST', '/content/eventExceptions', { token: church().editor, body: { id: ex.id, exceptionDate: '2026-01-11T16:00:00.000Z' } })).statusCode).toBe(404);
    await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { id: ex.id, exceptionDate: '2026-01-11T16:00:00.000Z' } });
    // a private event is its group's and the editors': someone outside the group sees the public ones only, and
    // cannot tell the private one from none
    expect((await ok(t.app, 'GET', `/content/events/group/${g1}`, { token: c.anyone })).map((e: { title: string }) => e.title)).toEqual(['Open']);
    expect((await ok(t.app, 'GET', `/content/events/timeline/group/${g1}?eventIds=${hidden.id}`, { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([]);
    expect((await call(t.app, 'GET', `/content/events/${hidden.id}`, { token: c.anyone })).statusCode).toBe(404);
    expect((await ok(t.app, 'GET', `/content/events/${hidden.id}`, { token: c.editor })).title).toBe('Hidden');
    expect((await ok(t.app, 'GET', `/content/events/${hidden.id}`, { token: c.token([], { leaderGroupIds: [g1] }) })).title).toBe('Hidden');
    t.membership.groupsOf.set(c.personId, [g1]);
    const group = await ok(t.app, 'GET', `/content/events/group/${g1}`, { token: c.anyone });
    expect(group.map((e: { title: string }) => e.title).sort()).toEqual(['Hidden', 'Open']);
    expect(group.find((e: { id: string }) => e.id === open.id).exceptionDates).toEqual(['2026-01-11T16:00:00.000Z']);
    expect((await ok(t.app, 'GET', `/content/events/public/group/${c.churchId}/${g1}`)).map((e: { title: string }) => e.title)).toEqual(['Open']);
    expect(await ok(t.app, 'GET', `/content/events/${open.id}`, { token: c.anyone })).toMatchObject({ id: open.id, exceptionDates: ['2026-01-11T16:00:00.000Z'] });
    expect((await ok(t.app, 'GET', `/content/events/timeline/group/${g2}`, { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([other.id]);
    expect((await ok(t.app, 'GET', `/content/events/timeline/group/${g1}?eventIds=${hidden.id}`, { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([hidden.id]);
    t.membership.groupsOf.set(c.personId, [g2]);
    expect((await ok(t.app, 'GET', '/content/events/timeline', { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([other.id]);
    const badEvent = await call(t.app, 'POST', '/content/eventExceptions', { token: church().editor, body: [{ eventId: open.id, exceptionDate: '2026-01-11' }] });
    expect(badEvent.json().errors[0]).toMatchObject({ param: '[0].eventId' });
    await ok(t.app, 'DELETE', `/content/eventExceptions/${ex.id}`, { token: c.editor });
    await ok(t.app, 'DELETE', `/content/events/${hidden.id}`, { token: c.editor });
    expect(await ok(t.app, 'GET', `/content/events/group/${g1}`, { token: c.anyone })).toMatchObject([{ title: 'Open', exceptionDates: [] }]);
    t.membership.state.down = true;
    try {
      expect((await call(t.app, 'GET', '/content/events/timeline', { token: c.anyone })).statusCode).toBe(502);
    } finally {
      t.membership.state.down = false;
    }
  });
});

describe('curated calendars and events', () => {
  it('answers B1Admin’s calendar (CuratedCalendar.tsx) a row per event of a whole-group entry, the event’s fields beside the entry’s', async () => {
    const c = church();
    const group = t.membership.group(c.churchId);
    const [cal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: c.editor, body: [{ name: 'Church calendar' }] });
    const [sun, wed] = await ok(t.app, 'POST', '/content/events', {
      token: c.editor,
      body: [
        { groupId: group, title: 'Adult Bible Class', ...sunday, recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU' },
        { groupId: group, title: 'Midweek', ...sunday },
      ],
    });
    // EditCalendarEventModal's save: the whole group
    const [entry] = await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: [{ curatedCalendarId: cal.id, groupId: group }] });
    const rows = await ok(t.app, 'GET', `/content/curatedEvents/calendar/${cal.id}`, { token: c.editor });
    expect(rows).toHaveLength(2);
    const byEvent = (id: string) => rows.find((r: { realEventId: string }) => r.realEventId === id);
    expect(byEvent(sun.id)).toMatchObject({ id: entry.id, curatedCalendarId: cal.id, groupId: group, eventId: null, curatedGroupId: group, title: 'Adult Bible Class', start: sun.start, end: sun.end, allDay: false, recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU', visibility: 'public' });
    expect(byEvent(wed.id)).toMatchObject({ id: entry.id, title: 'Midweek', start: wed.start, recurrenceRule: null });
    // the spec's nested list stays on every row
    expect(byEvent(sun.id).events.map((e: { id: string }) => e.id).sort()).toEqual([sun.id, wed.id].sort());
    // withoutEvents: the entries alone
    expect(await ok(t.app, 'GET', `/content/curatedEvents/calendar/${cal.id}?withoutEvents=1`, { token: c.editor })).toEqual([entry]);
  });

  it('holds single events and whole groups, removes one event or a group, and keeps churches apart', async () => {
    const c = church();
    const g1 = t.membership.group(c.churchId);
    const g2 = t.membership.group(c.churchId);
    const [cal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: c.editor, body: { name: 'Church calendar' } });
    expect(await ok(t.app, 'GET', '/content/curatedCalendars', { token: c.anyone })).toEqual([cal]);
    expect(await ok(t.app, 'GET', `/content/curatedCalendars/${cal.id}`, { token: c.anyone })).toEqual(cal);
    const [a, b, priv] = await ok(t.app, 'POST', '/content/events', {
      token: c.editor,
      body: [
        { groupId: g1, title: 'A', ...sunday },
        { groupId: g1, title: 'B', ...sunday },
        { groupId: g1, title: 'Private', ...sunday, visibility: 'private' },
      ],
    });
    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId: g2, title: 'C', ...sunday } });
    const added = await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { curatedCalendarId: cal.id, groupId: g1, eventIds: [a.id, b.id, priv.id] } });
    expect(added.map((e: { eventId: string }) => e.eventId)).toEqual([a.id, b.id, priv.id]);
    const repeat = await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { curatedCalendarId: cal.id, groupId: g1, eventIds: [a.id] } });
    expect(repeat[0].id).toBe(added[0].id);
    const [whole] = await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { curatedCalendarId: cal.id, groupId: g2 } });
    expect(whole.eventId).toBeNull();
    const listed = await ok(t.app, 'GET', `/content/curatedEvents/calendar/${cal.id}`, { token: c.anyone });
    expect(listed).toHaveLength(4);
    expect(listed.find((e: { id: string }) => e.id === whole.id).events.map((e: { title: string }) => e.title)).toEqual(['C']);
    expect((await ok(t.app, 'GET', `/content/curatedEvents/calendar/${cal.id}?withoutEvents=1`, { token: c.anyone }))[0].events).toBeUndefined();
    const pub = await ok(t.app, 'GET', `/content/curatedEvents/public/calendar/${c.churchId}/${cal.id}`);
    expect(pub.map((e: { title: string }) => e.title).sort()).toEqual(['A', 'B', 'C']);
    await ok(t.app, 'DELETE', `/content/curatedEvents/calendar/${cal.id}/event/${a.id}`, { token: c.editor });
    await ok(t.app, 'DELETE', `/content/curatedEvents/calendar/${cal.id}/group/${g2}`, { token: c.editor });
    expect((await ok(t.app, 'GET', '/content/curatedEvents', { token: c.anyone })).map((e: { eventId: string }) => e.eventId).sort()).toEqual([b.id, priv.id].sort());
    expect(await ok(t.app, 'GET', `/content/curatedEvents/${added[1].id}`, { token: c.anyone })).toMatchObject({ eventId: b.id });
    // An entry saved by id takes the event given; an id of another church's entry is a 404.
    const [moved] = await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { id: added[2].id, eventId: a.id } });
    expect(moved).toMatchObject({ id: added[2].id, curatedCalendarId: cal.id, groupId: g1, eventId: a.id });
    await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { id: added[2].id, eventId: priv.id } });
    expect((await call(t.app, 'POST', '/content/curatedEvents', { token: church().editor, body: { id: added[2].id, eventId: null } })).statusCode).toBe(404);
    await ok(t.app, 'DELETE', `/content/curatedEvents/${added[1].id}`, { token: c.editor });
    const other = church();
    const foreign = await call(t.app, 'POST', '/content/curatedEvents', { token: other.editor, body: { curatedCalendarId: cal.id, groupId: t.membership.group(other.churchId) } });
    expect(foreign.json().errors[0]).toMatchObject({ param: 'curatedCalendarId' });
    // another church's group is refused as a reference
    const [ownCal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: other.editor, body: { name: 'mine' } });
    const foreignGroup = await call(t.app, 'POST', '/content/curatedEvents', { token: other.editor, body: [{ curatedCalendarId: ownCal.id, groupId: g1 }] });
    expect(foreignGroup.statusCode).toBe(400);
    expect(foreignGroup.json().errors[0]).toMatchObject({ param: '[0].groupId' });
    const [otherCal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: other.editor, body: { name: 'x' } });
    const foreignEvent = await call(t.app, 'POST', '/content/curatedEvents', { token: other.editor, body: { curatedCalendarId: otherCal.id, eventIds: [b.id] } });
    expect(foreignEvent.json().errors[0]).toMatchObject({ param: 'eventIds', msg: 'eventIds is not a record of this church' });
    expect((await call(t.app, 'GET', `/content/curatedEvents/public/calendar/${other.churchId}/${cal.id}`)).statusCode).toBe(404);
    await ok(t.app, 'DELETE', `/content/curatedCalendars/${cal.id}`, { token: c.editor });
    expect(await ok(t.app, 'GET', '/content/curatedEvents', { token: c.anyone })).toEqual([]);
  });
});

describe('GET /content/events/subscribe', () => {
  it('is a valid ICS feed: RRULE with EXDATE in the church time zone, stable UIDs, VTIMEZONE, all-day dates', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { keyName: 'timeZone', value: 'America/Chicago', public: true } });
    const [weekly, christmas] = await ok(t.app, 'POST', '/content/events', {
      token: c.editor,
      body: [
        { groupId, title: 'Sunday Worship', ...sunday, recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=20', description: 'All welcome' },
        { groupId, title: 'Christmas', start: '2026-12-25T06:00:00.000Z', end: '2026-12-25T06:00:00.000Z', allDay: true },
        { groupId, title: 'Elders', ...sunday, visibility: 'private' },
      ],
    });
    await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { eventId: weekly.id, exceptionDate: '2026-01-11T16:00:00.000Z' } });
    const res = await call(t.app, 'GET', `/content/events/subscribe?churchId=${c.churchId}&groupId=${groupId}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/calendar');
    const text = res.body.replace(/\r\n[ \t]/g, '');
    expect(text).toContain('BEGIN:VTIMEZONE\r\nTZID:America/Chicago');
    expect(text).toContain('DTSTART;TZID=America/Chicago:20260104T100000');
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=SU;COUNT=20');
    expect(text).toContain('EXDATE;TZID=America/Chicago:20260111T100000');
    expect(text).toContain('DTSTART;VALUE=DATE:20261225');
    expect(text).toContain('DTEND;VALUE=DATE:20261226');
    expect(text).not.toContain('Elders');
    const parsed = ical.sync.parseICS(res.body);
    const events = Object.values(parsed).filter((x): x is VEvent => (x as CalendarComponent | undefined)?.type === 'VEVENT');
    expect(events.map((e) => e.uid).sort()).toEqual([`${christmas.id}@content.church`, `${weekly.id}@content.church`].sort());
    const worship = events.find((e) => e.summary === 'Sunday Worship')!;
    expect(worship.rrule).toBeTruthy();
    // node-ical files each EXDATE under its date and its instant: one distinct instant.
    expect([...new Set(Object.values(worship.exdate ?? {}).map((d) => new Date(d as Date).toISOString()))]).toEqual(['2026-01-11T16:00:00.000Z']);
    expect(worship.start.toISOString()).toBe(sunday.start);
    // In March (after the change to daylight time) the service is still at 10:00 in Chicago, 15:00 UTC.
    const march = worship.rrule!.between(new Date('2026-03-14T00:00:00Z'), new Date('2026-03-16T00:00:00Z'));
    expect(march).toHaveLength(1);
    const again = await call(t.app, 'GET', `/content/events/subscribe?churchId=${c.churchId}&groupId=${groupId}`);
    expect(again.body.match(/UID:[^\r]+/g)).toEqual(res.body.match(/UID:[^\r]+/g));
    // Kept while nothing changes (304 on revalidation); a new exception shows at once.
    const etag = res.headers.etag as string;
    expect((await call(t.app, 'GET', `/content/events/subscribe?churchId=${c.churchId}&groupId=${groupId}`, { headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { eventId: weekly.id, exceptionDate: '2026-01-18T16:00:00.000Z' } });
    const changed = await call(t.app, 'GET', `/content/events/subscribe?churchId=${c.churchId}&groupId=${groupId}`, { headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.body.replace(/\r\n[ \t]/g, '')).toContain('EXDATE;TZID=America/Chicago:20260111T100000,20260118T100000');
    expect((await call(t.app, 'GET', `/content/events/subscribe?churchId=${c.churchId}`)).json().errors[0]).toMatchObject({ param: 'groupId' });
  });

  it('is kept compressed per calendar, and follows a change of the calendar at once', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [cal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: c.editor, body: { name: 'Highlights' } });
    const [other] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: c.editor, body: { name: 'Other' } });
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Picnic', ...sunday } });
    await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { curatedCalendarId: cal.id, eventIds: [ev.id] } });
    const url = (id: string) => `/content/events/subscribe?churchId=${c.churchId}&curatedCalendarId=${id}`;
    const plain = await call(t.app, 'GET', url(cal.id));
    const gz = await call(t.app, 'GET', url(cal.id), { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'text/calendar; charset=utf-8', 'cache-control': 'public, max-age=300', vary: 'accept-encoding' });
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(gz.headers.etag).not.toBe(plain.headers.etag);
    expect((await call(t.app, 'GET', url(cal.id), { headers: { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) } })).statusCode).toBe(304);
    expect((await call(t.app, 'GET', url(other.id))).body).not.toContain('Picnic');
    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { id: ev.id, title: 'Church Picnic' } });
    const changed = await call(t.app, 'GET', url(cal.id), { headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toContain('SUMMARY:Church Picnic');
    expect((await call(t.app, 'GET', `/content/events/subscribe?churchId=${church().churchId}&curatedCalendarId=${cal.id}`)).statusCode).toBe(404);
  });

  it('serves a curated calendar', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [cal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: c.editor, body: { name: 'Highlights' } });
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Picnic', ...sunday } });
    await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { curatedCalendarId: cal.id, eventIds: [ev.id] } });
    const res = await call(t.app, 'GET', `/content/events/subscribe?churchId=${c.churchId}&curatedCalendarId=${cal.id}`);
    const events = Object.values(ical.sync.parseICS(res.body)).filter((x): x is VEvent => (x as CalendarComponent | undefined)?.type === 'VEVENT');
    expect(events.map((e) => e.summary)).toEqual(['Picnic']);
    expect(res.body).toContain('X-WR-CALNAME:Highlights');
    expect(events[0]!.start.toISOString()).toBe(sunday.start);
  });
});

describe('timelines as B1App reads them', () => {
  it('B1App:src/helpers/TimelineHelper.ts reads postId, postType and groupId of each timeline event', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId, title: 'Youth night', ...sunday, end: '2099-01-01T00:00:00.000Z' }] });
    t.membership.groupsOf.set(c.personId, [groupId]);
    for (const url of ['/content/events/timeline', `/content/events/timeline/group/${groupId}`]) {
      const items = await ok(t.app, 'GET', url, { token: c.anyone });
      // the spec's event keys stay; the post's keys are beside them
      expect(items).toEqual([{ ...ev, postType: 'event', postId: ev.id }]);
    }
  });
});

describe('groups an event names', () => {
  it('an event is filed only under a group of the caller’s church; membership away is a 502 and nothing is written', async () => {
    const c = church();
    const other = church();
    const foreign = t.membership.group(other.churchId);
    const res = await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId: t.membership.group(c.churchId), title: 'Ok', ...sunday }, { groupId: foreign, title: 'Theirs', ...sunday }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].groupId' });
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId: t.membership.group(c.churchId), title: 'Mine', ...sunday }] });
    const moved = await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: ev.id, groupId: foreign }] });
    expect(moved.json().errors[0]).toMatchObject({ param: '[0].groupId' });
    // a leader of a group of another church (a forged claim) is refused the same way
    expect((await call(t.app, 'POST', '/content/events', { token: c.token([], { leaderGroupIds: [foreign] }), body: [{ groupId: foreign, title: 'x', ...sunday }] })).statusCode).toBe(400);
    // the event posted back whole with its own group is not asked about again; a new group is, and membership
    // away is its 502 (the test app's own client would answer the reference check itself: membership's fake, bare)
    t.membership.state.down = true;
    const client = t.app.deps.internal;
    t.app.deps.internal = t.membership.internal;
    try {
      const [same] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ ...ev, title: 'Mine again' }] });
      expect(same).toMatchObject({ id: ev.id, groupId: ev.groupId, title: 'Mine again' });
      expect((await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ groupId: t.membership.group(c.churchId), title: 'New', ...sunday }] })).statusCode).toBe(502);
    } finally {
      t.membership.state.down = false;
      t.app.deps.internal = client;
    }
    expect((await ok(t.app, 'GET', `/content/events/group/${foreign}`, { token: other.editor }))).toEqual([]);
    expect((await ok(t.app, 'GET', `/content/events/group/${ev.groupId}`, { token: c.editor })).map((e: { title: string }) => e.title)).toEqual(['Mine again']);
  });
});
