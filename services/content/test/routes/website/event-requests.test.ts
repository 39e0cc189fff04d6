import { randomUUID } from 'node:crypto';
import { contentInternal } from '@church/common';
import { call, fakeServer, signedCall } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'BEGIN:VEVENT',
  'UID:choir@example.org',
  'SUMMARY:Choir practice',
  'DESCRIPTION:Bring music',
  'DTSTART;TZID=America/New_York:20270104T190000',
  'DTEND;TZID=America/New_York:20270104T203000',
  'RRULE:FREQ=WEEKLY;BYDAY=MO',
  'EXDATE;TZID=America/New_York:20270111T190000',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:picnic@example.org',
  'SUMMARY:Picnic',
  'DTSTART;VALUE=DATE:20270601',
  'DTEND;VALUE=DATE:20270602',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');

// A calendar feed on loopback, which the outbound rules refuse unless OUTBOUND_ALLOW_PRIVATE is set.
const t = useContent({
  config: { OUTBOUND_ALLOW_PRIVATE: 'true' },
  fakes: async () => {
    const feed = await fakeServer((req) => (req.path === '/church.ics' ? { body: ICS, headers: { 'content-type': 'text/calendar' } } : { status: 404, body: 'no' }));
    return { feed, close: () => feed.close() };
  },
});
const year = new Date().getUTCFullYear() + 1;
const at = (month: number, day: number, hour: number) => new Date(Date.UTC(year, month - 1, day, hour)).toISOString();

const signed = (url: string, body: unknown) => signedCall(t.app, url, body);

describe('event requests (B1App RequestEventPage, MyRequestsPage; B1Admin ApprovalsPage)', () => {
  it('keeps a member request off calendars until staff approve it; the member sees and withdraws their own', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [room] = await ok(t.app, 'POST', '/content/rooms', { token: c.editor, body: { name: 'Hall', approvalGroupId: t.membership.group(c.churchId) } });
    const [chairs] = await ok(t.app, 'POST', '/content/resources', { token: c.editor, body: { name: 'Chairs', quantity: 100 } });
    const member = c.tokenOf(randomUUID());
    const body = { title: 'Baby shower', description: '', allDay: false, start: at(4, 10, 18), end: at(4, 10, 20), roomIds: [room.id], resources: [{ resourceId: chairs.id, quantity: 40 }] };
    const { event, bookings } = await ok(t.app, 'POST', '/content/events/request', { token: member, body });
    expect(event).toMatchObject({ title: 'Baby shower', groupId: null, visibility: 'private', approvalStatus: 'pending', description: null });
    expect(bookings.map((b: { status: string; quantity: number }) => [b.status, b.quantity])).toEqual([
      ['pending', 1],
      ['approved', 40],
    ]);
    expect((await call(t.app, 'POST', '/content/events/request', { token: member, body: { ...body, roomIds: [randomUUID()] } })).json().errors[0]).toMatchObject({ param: 'roomIds[0]' });
    expect((await call(t.app, 'POST', '/content/events/request', { token: member, body: { ...body, title: '' } })).statusCode).toBe(400);

    const mine = await ok(t.app, 'GET', '/content/events/requests/mine', { token: member });
    expect(mine).toEqual([expect.objectContaining({ id: event.id, approvalStatus: 'pending', bookings: [expect.objectContaining({ roomName: 'Hall', status: 'pending' }), expect.objectContaining({ resourceName: 'Chairs' })] })]);
    expect(await ok(t.app, 'GET', '/content/events/requests/mine', { token: c.anyone })).toEqual([]);

    // Staff: the pending list and the decision; members do neither.
    expect((await ok(t.app, 'GET', '/content/events/pending', { token: c.editor })).map((e: { id: string }) => e.id)).toEqual([event.id]);
    expect((await call(t.app, 'GET', '/content/events/pending', { token: member })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/events/${event.id}/approve`, { token: member, body: {} })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/events/${event.id}/approve`, { token: church().editor, body: {} })).statusCode).toBe(404);
    const approved = await ok(t.app, 'POST', `/content/events/${event.id}/approve`, { token: c.editor, body: { groupId } });
    expect(approved).toMatchObject({ id: event.id, approvalStatus: 'approved', visibility: 'public', groupId });
    await t.drain();
    const notices = t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople').map((j) => j.data as { churchId: string; personIds: string[]; message: string });
    expect(notices.filter((n) => n.churchId === c.churchId).map((n) => n.message)).toEqual(['Your event request "Baby shower" was approved.']);
    expect((await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([event.id]);
    expect(await ok(t.app, 'GET', '/content/events/pending', { token: c.editor })).toEqual([]);

    // Another request, rejected: on no calendar; a pending one is withdrawn by its requester only.
    const second = (await ok(t.app, 'POST', '/content/events/request', { token: member, body: { ...body, groupId, roomIds: [], resources: [] } })).event;
    expect((await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([event.id]);
    expect((await call(t.app, 'DELETE', `/content/events/${second.id}`, { token: c.anyone })).statusCode).toBe(401);
    await ok(t.app, 'DELETE', `/content/events/${second.id}`, { token: member });
    expect((await call(t.app, 'DELETE', `/content/events/${event.id}`, { token: member })).statusCode).toBe(401);
    const third = (await ok(t.app, 'POST', '/content/events/request', { token: member, body: { ...body, groupId, roomIds: [], resources: [] } })).event;
    expect(await ok(t.app, 'POST', `/content/events/${third.id}/reject`, { token: c.editor, body: {} })).toMatchObject({ approvalStatus: 'rejected', visibility: 'private' });
    expect((await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.anyone })).map((e: { id: string }) => e.id)).toEqual([event.id]);
    // An event staff wrote is no request to decide.
    const [plain] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Plain', start: at(4, 1, 1), end: at(4, 1, 2) } });
    expect((await call(t.app, 'POST', `/content/events/${plain.id}/approve`, { token: c.editor, body: {} })).statusCode).toBe(400);
  });
});

describe('events without a group and requests', () => {
  it('only website editors change an event without a group; a requester cannot publish their own request', async () => {
    const c = church();
    const requester = c.personId;
    const member = c.tokenOf(requester);
    const body = { title: 'Bake sale', start: at(5, 2, 15), end: at(5, 2, 17) };
    const { event } = await ok(t.app, 'POST', '/content/events/request', { token: member, body });
    // a guest (any signed-in person) and the requester: 401, nothing changed, nothing public
    for (const token of [c.anyone, member, c.token([], { leaderGroupIds: [t.membership.group(c.churchId)] })]) {
      const res = await call(t.app, 'POST', '/content/events', { token, body: [{ id: event.id, title: 'Defaced', visibility: 'public' }] });
      expect(res.statusCode).toBe(401);
    }
    expect((await call(t.app, 'GET', `/content/events/public/${c.churchId}/${event.id}`)).statusCode).toBe(404);
    expect(await ok(t.app, 'GET', `/content/events/${event.id}`, { token: c.editor })).toMatchObject({ title: 'Bake sale', visibility: 'private', approvalStatus: 'pending' });
    // editors edit it, but it goes public only through its approval
    const publish = await call(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: event.id, visibility: 'public' }] });
    expect(publish.statusCode).toBe(400);
    expect(publish.json().errors[0]).toMatchObject({ param: '[0].visibility' });
    const [renamed] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: [{ id: event.id, title: 'Bake sale for missions' }] });
    expect(renamed).toMatchObject({ title: 'Bake sale for missions', visibility: 'private', approvalStatus: 'pending' });
    // a group's leader may not move it into their group either (the old event has no group)
    const led = t.membership.group(c.churchId);
    expect((await call(t.app, 'POST', '/content/events', { token: c.token([], { leaderGroupIds: [led] }), body: [{ id: event.id, groupId: led }] })).statusCode).toBe(401);
    await ok(t.app, 'POST', `/content/events/${event.id}/approve`, { token: c.editor, body: {} });
    expect(await ok(t.app, 'GET', `/content/events/public/${c.churchId}/${event.id}`)).toMatchObject({ title: 'Bake sale for missions' });
    // approved and without a group: still the editors' only
    expect((await call(t.app, 'POST', '/content/events', { token: member, body: [{ id: event.id, title: 'Defaced' }] })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/content/events/${event.id}`, { token: member })).statusCode).toBe(401);
  });

  it('a request, its approval and an import name only groups of the caller’s church', async () => {
    const c = church();
    const foreign = t.membership.group(church().churchId);
    const body = { title: 'Picnic', start: at(6, 1, 15), end: at(6, 1, 17) };
    const asked = await call(t.app, 'POST', '/content/events/request', { token: c.tokenOf(randomUUID()), body: { ...body, groupId: foreign } });
    expect(asked.statusCode).toBe(400);
    expect(asked.json().errors[0]).toMatchObject({ param: 'groupId' });
    const { event } = await ok(t.app, 'POST', '/content/events/request', { token: c.tokenOf(randomUUID()), body });
    const approve = await call(t.app, 'POST', `/content/events/${event.id}/approve`, { token: c.editor, body: { groupId: foreign } });
    expect(approve.statusCode).toBe(400);
    expect(approve.json().errors[0]).toMatchObject({ param: 'groupId' });
    expect(await ok(t.app, 'GET', `/content/events/${event.id}`, { token: c.editor })).toMatchObject({ approvalStatus: 'pending', groupId: null });
    const imported = await call(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { ics: ICS, groupId: foreign } });
    expect(imported.statusCode).toBe(400);
    expect(imported.json().errors[0]).toMatchObject({ param: 'groupId' });
    expect(await ok(t.app, 'GET', `/content/events/group/${foreign}`, { token: c.editor })).toEqual([]);
  });
});

describe('RSVPs (B1App GroupCalendarTab, B1Admin GroupRsvpRosterDialog)', () => {
  it('lets members of the group answer each occurrence, leaders read the roster, and counts per occurrence', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [weekly] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Small group', start: at(1, 6, 1), end: at(1, 6, 3), recurrenceRule: 'FREQ=WEEKLY' } });
    const [alice, bob] = [randomUUID(), randomUUID()];
    t.membership.groupsOf.set(alice, [groupId]);
    t.membership.groupsOf.set(bob, [groupId]);
    const second = at(1, 13, 1);
    const mine = await ok(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(alice), body: { occurrenceStart: second, response: 'yes' } });
    expect(mine).toMatchObject({ eventId: weekly.id, personId: alice, response: 'yes', occurrenceStart: second });
    const changed = await ok(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(alice), body: { occurrenceStart: second, response: 'maybe' } });
    expect(changed.id).toBe(mine.id);
    await ok(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(bob), body: { occurrenceStart: second, response: 'no' } });
    // Not a member, not an occurrence, not an answer, not this church's event.
    expect((await call(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.anyone, body: { occurrenceStart: second, response: 'yes' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(alice), body: { occurrenceStart: at(1, 16, 1), response: 'yes' } })).json().errors[0]).toMatchObject({ param: 'occurrenceStart' });
    expect((await call(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(alice), body: { occurrenceStart: at(1, 2, 1), response: 'yes' } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(alice), body: { occurrenceStart: second, response: 'sure' } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: church().anyone, body: { occurrenceStart: second, response: 'yes' } })).statusCode).toBe(404);

    const counts = await ok(t.app, 'GET', `/content/events/rsvps/group/${groupId}?from=${at(1, 1, 0)}&to=${at(2, 1, 0)}`, { token: c.tokenOf(bob) });
    expect(counts).toEqual([{ eventId: weekly.id, occurrenceStart: second, yes: 0, no: 1, maybe: 1, mine: 'no' }]);
    expect((await call(t.app, 'GET', `/content/events/rsvps/group/${groupId}`, { token: c.anyone })).statusCode).toBe(401);

    const leader = c.token([], { leaderGroupIds: [groupId] });
    const roster = await ok(t.app, 'GET', `/content/events/${weekly.id}/rsvps?occurrenceStart=${encodeURIComponent(second)}`, { token: leader });
    expect(roster.map((r: { personId: string; response: string }) => [r.personId, r.response]).sort()).toEqual([[alice, 'maybe'], [bob, 'no']].sort());
    expect((await call(t.app, 'GET', `/content/events/${weekly.id}/rsvps?occurrenceStart=${second}`, { token: c.token([], { leaderGroupIds: [randomUUID()] }) })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/content/events/${weekly.id}/rsvps`, { token: leader })).statusCode).toBe(400);

    await ok(t.app, 'DELETE', `/content/events/${weekly.id}/rsvp?occurrenceStart=${encodeURIComponent(second)}`, { token: c.tokenOf(alice) });
    expect((await ok(t.app, 'GET', `/content/events/rsvps/group/${groupId}?from=${at(1, 1, 0)}&to=${at(2, 1, 0)}`, { token: c.tokenOf(alice) }))[0]).toMatchObject({ maybe: 0, no: 1, mine: null });

    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { id: weekly.id, rsvpDisabled: true } });
    expect((await call(t.app, 'POST', `/content/events/${weekly.id}/rsvp`, { token: c.tokenOf(alice), body: { occurrenceStart: second, response: 'yes' } })).statusCode).toBe(400);
  });
});

describe('POST /content/events/ical (B1Admin ImportIcsModal)', () => {
  it('imports the events of an ICS text or feed into a group, with rules and exception dates', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const imported = await ok(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { ics: ICS, groupId } });
    expect(imported).toEqual([
      expect.objectContaining({ title: 'Choir practice', description: 'Bring music', groupId, start: '2027-01-05T00:00:00.000Z', recurrenceRule: 'FREQ=WEEKLY;BYDAY=MO', exceptionDates: ['2027-01-12T00:00:00.000Z'], allDay: false }),
      expect.objectContaining({ title: 'Picnic', allDay: true, recurrenceRule: null, visibility: 'public' }),
    ]);
    const fromFeed = await ok(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { url: `${t.feed.url}/church.ics`, groupId, visibility: 'private' } });
    expect(fromFeed.map((e: { title: string; visibility: string }) => [e.title, e.visibility])).toEqual([
      ['Choir practice', 'private'],
      ['Picnic', 'private'],
    ]);
    expect((await call(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { url: `${t.feed.url}/missing.ics`, groupId } })).statusCode).toBe(502);
    expect((await call(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { ics: 'hello', groupId } })).json().errors[0]).toMatchObject({ param: 'ics' });
    expect((await call(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { groupId } })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', '/content/events/ical', { token: c.anyone, body: { ics: ICS, groupId } })).statusCode).toBe(401);
    expect(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: church().anyone })).toEqual([]);
    // Each imported event is reported to the audit log as the webhook event `event.created`, in its transaction.
    await t.drain();
    const records = t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);
    expect(records.filter((r) => r.churchId === c.churchId).map((r) => `${r.entityType} ${r.action} ${r.event}`)).toEqual(Array(4).fill('event created event.created'));
  });
});

describe('POST /content/internal/events/occurrences (messaging reminders)', () => {
  it('answers the starts of occurrences in [from, to), exceptions left out, in the church time zone', async () => {
    const c = church();
    await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { keyName: 'timeZone', value: 'America/New_York' } });
    // Sundays 9:00 New York time from March 7, 2027 (EST, 14:00Z), across the change to daylight saving on March 14
    // (13:00Z after it); March 21 is taken out.
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId: t.membership.group(c.churchId), title: 'Prayer', start: '2027-03-07T14:00:00.000Z', end: '2027-03-07T15:00:00.000Z', recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU' } });
    await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { eventId: ev.id, exceptionDate: '2027-03-21T13:00:00.000Z' } });
    const { path } = contentInternal.eventOccurrences;
    const body = { churchId: c.churchId, eventId: ev.id, from: '2027-03-07T14:00:00.000Z', to: '2027-03-28T13:00:00.000Z' };
    const res = await signed(path, body);
    expect(res.statusCode).toBe(200);
    const answer = contentInternal.eventOccurrences.answer.parse(res.json());
    expect(answer).toEqual({ event: { id: ev.id, groupId: ev.groupId, title: 'Prayer', registrationEnabled: false }, starts: ['2027-03-07T14:00:00.000Z', '2027-03-14T13:00:00.000Z'] });
    expect((await signed(path, { ...body, churchId: randomUUID() })).json()).toEqual({ event: null, starts: [] });
    expect((await call(t.app, 'POST', path, { token: c.editor, body })).statusCode).toBe(401);
    expect((await signed(path, { ...body, from: 'yesterday' })).statusCode).toBe(400);
  });
});
