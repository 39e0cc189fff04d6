import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok, statementsFor } from '../../helpers';

const t = useContent();
const reported = () => t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);

// Dates a year ahead of the clock: conflicts are looked for from a month ago on.
const year = new Date().getUTCFullYear() + 1;
const at = (month: number, day: number, hour: number, minute = 0) => new Date(Date.UTC(year, month - 1, day, hour, minute)).toISOString();

describe('rooms, resources, templates and blockouts', () => {
  it('are written by website editors, read by any user of the church, and never across churches', async () => {
    const c = church();
    const [room] = await ok(t.app, 'POST', '/content/rooms', { token: c.editor, body: [{ id: '', name: 'Fellowship Hall', capacity: 120, description: '', approvalGroupId: '' }] });
    expect(room).toMatchObject({ name: 'Fellowship Hall', capacity: 120, description: null, approvalGroupId: null, churchId: c.churchId });
    const [projector] = await ok(t.app, 'POST', '/content/resources', { token: c.editor, body: { name: 'Projector', quantity: 2 } });
    expect(await ok(t.app, 'GET', '/content/rooms', { token: c.anyone })).toEqual([room]);
    expect(await ok(t.app, 'GET', '/content/resources', { token: c.anyone })).toEqual([projector]);
    expect((await call(t.app, 'POST', '/content/rooms', { token: c.anyone, body: { name: 'x' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/content/rooms', { token: c.editor, body: [{ capacity: 3 }] })).json().errors[0]).toMatchObject({ param: '[0].name' });
    expect((await call(t.app, 'POST', '/content/resources', { token: c.editor, body: { name: 'x', quantity: 0 } })).statusCode).toBe(400);

    const [template] = await ok(t.app, 'POST', '/content/eventTemplates', {
      token: c.editor,
      body: { name: 'Wedding', title: 'Wedding', durationMinutes: 180, visibility: 'private', roomIds: `${room.id},`, resourcesJson: JSON.stringify([{ resourceId: projector.id, quantity: 1 }]) },
    });
    expect(template).toMatchObject({ name: 'Wedding', durationMinutes: 180, roomIds: `${room.id},` });
    expect((await call(t.app, 'POST', '/content/eventTemplates', { token: c.editor, body: [{ name: 'x', resourcesJson: '{bad' }] })).json().errors[0]).toMatchObject({ param: '[0].resourcesJson' });

    const [blockout] = await ok(t.app, 'POST', '/content/calendarBlockouts', { token: c.editor, body: { roomId: room.id, startTime: at(3, 1, 0), endTime: at(3, 2, 0), reason: 'Floors' } });
    expect(blockout).toMatchObject({ roomId: room.id, resourceId: null, reason: 'Floors', startTime: at(3, 1, 0) });
    expect((await call(t.app, 'POST', '/content/calendarBlockouts', { token: c.editor, body: { startTime: at(3, 2, 0), endTime: at(3, 1, 0) } })).json().errors[0]).toMatchObject({ param: 'endTime' });

    // Another church: sees none of it, changes none of it, and cannot point at it.
    const other = church();
    expect(await ok(t.app, 'GET', '/content/rooms', { token: other.anyone })).toEqual([]);
    expect((await call(t.app, 'POST', '/content/rooms', { token: other.editor, body: { id: room.id, name: 'Mine' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/rooms/${room.id}`, { token: other.editor })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/content/calendarBlockouts', { token: other.editor, body: { roomId: room.id, startTime: at(3, 1, 0), endTime: at(3, 2, 0) } })).json().errors[0]).toMatchObject({
      param: 'roomId',
    });
    expect(await ok(t.app, 'GET', `/content/rooms/${room.id}`, { token: c.anyone })).toMatchObject({ name: 'Fellowship Hall' });

    await ok(t.app, 'DELETE', `/content/eventTemplates/${template.id}`, { token: c.editor });
    await ok(t.app, 'DELETE', `/content/rooms/${room.id}`, { token: c.editor });
    // The room's blockouts go with it.
    expect(await ok(t.app, 'GET', '/content/calendarBlockouts', { token: c.anyone })).toEqual([]);
    await t.drain();
    expect(reported().filter((r) => r.churchId === c.churchId).map((r) => `${r.entityType}.${r.action}`)).toEqual(
      expect.arrayContaining(['room.created', 'resource.created', 'eventTemplate.created', 'calendarBlockout.created', 'eventTemplate.destroyed', 'room.destroyed']),
    );
  });
});

async function setup() {
  const c = church();
  const groupId = t.membership.group(c.churchId);
  const [room] = await ok(t.app, 'POST', '/content/rooms', { token: c.editor, body: { name: 'Chapel' } });
  const [hall] = await ok(t.app, 'POST', '/content/rooms', { token: c.editor, body: { name: 'Hall', approvalGroupId: t.membership.group(c.churchId) } });
  const [mics] = await ok(t.app, 'POST', '/content/resources', { token: c.editor, body: { name: 'Mics', quantity: 3 } });
  return { c, groupId, room, hall, mics };
}

describe('POST /content/events/conflicts', () => {
  it('reports a room booked twice in overlapping occurrences of recurring events, expanded in the church time zone', async () => {
    const { c, groupId, room, mics } = await setup();
    await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { keyName: 'timeZone', value: 'America/New_York' } });
    // Sundays 10:00-11:00 New York time from January (15:00Z in winter, 14:00Z in summer).
    const [worship] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Worship', start: at(1, 3, 15), end: at(1, 3, 16), recurrenceRule: 'FREQ=WEEKLY;BYDAY=SU' } });
    await ok(t.app, 'POST', '/content/eventBookings', { token: c.editor, body: [{ eventId: worship.id, roomId: room.id }, { eventId: worship.id, resourceId: mics.id, quantity: 2 }] });

    // A monthly first-Sunday lunch 10:30-12:00 local overlaps worship's occurrence of that Sunday.
    const lunch = { start: at(7, 4, 14, 30), end: at(7, 4, 16), recurrenceRule: 'FREQ=MONTHLY;BYDAY=1SU', roomIds: [room.id] };
    const [clash] = await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: lunch });
    expect(clash).toMatchObject({ type: 'room', roomId: room.id, conflictingEventId: worship.id, conflictingEventTitle: 'Worship', date: at(7, 4, 14) });
    expect(clash.message).toContain('Chapel is already booked by "Worship"');
    // 11:10 local in July is after worship (10:00-11:00 EDT): no conflict, though 15:10Z is inside a UTC 15:00-16:00.
    expect(await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: at(7, 4, 15, 10), end: at(7, 4, 15, 30), roomIds: [room.id] } })).toEqual([]);
    // The event's own bookings do not conflict with it.
    expect(await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { ...lunch, eventId: worship.id } })).toEqual([]);
    // An exception date takes the occurrence out.
    await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { eventId: worship.id, exceptionDate: at(7, 4, 14) } });
    expect(await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: at(7, 4, 14, 30), end: at(7, 4, 16), roomIds: [room.id] } })).toEqual([]);

    // Three mics, two booked by worship: asking for two on a Sunday morning is one too many.
    const [short] = await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: at(8, 1, 14, 30), end: at(8, 1, 15), resources: [{ resourceId: mics.id, quantity: 2 }] } });
    expect(short).toMatchObject({ type: 'resource', resourceId: mics.id });
    expect(short.message).toContain('Only 1 of 3 "Mics"');
    expect(await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: at(8, 1, 14, 30), end: at(8, 1, 15), resources: [{ resourceId: mics.id, quantity: 1 }] } })).toEqual([]);

    // A church-wide blockout holds every room.
    const [closed] = await ok(t.app, 'POST', '/content/calendarBlockouts', { token: c.editor, body: { startTime: at(9, 1, 0), endTime: at(9, 3, 0), reason: 'Retreat' } });
    const [blocked] = await ok(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: at(9, 2, 20), end: at(9, 2, 21), roomIds: [room.id] } });
    expect(blocked).toMatchObject({ type: 'blockout', blockoutId: closed.id });

    // Validation, and another church's rooms are not this church's.
    expect((await call(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: at(1, 2, 0), end: at(1, 1, 0), roomIds: [] } })).json().errors[0]).toMatchObject({ param: 'end' });
    expect((await call(t.app, 'POST', '/content/events/conflicts', { token: c.anyone, body: { start: 'soon', end: at(1, 1, 0) } })).statusCode).toBe(400);
    expect(await ok(t.app, 'POST', '/content/events/conflicts', { token: church().anyone, body: lunch })).toEqual([]);
  });
});

describe('/content/eventBookings', () => {
  it('books for editors, group leaders and requesters; routes bookings of an approval group to it', async () => {
    const { c, groupId, room, hall } = await setup();
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Youth night', start: at(2, 5, 23), end: at(2, 6, 1) } });
    const stranger = c.tokenOf(randomUUID());
    const leaderToken = c.token([], { leaderGroupIds: [groupId] });
    expect((await call(t.app, 'POST', '/content/eventBookings', { token: stranger, body: { eventId: ev.id, roomId: room.id } })).statusCode).toBe(401);
    const [chapel, hallBooking] = await ok(t.app, 'POST', '/content/eventBookings', { token: leaderToken, body: [{ eventId: ev.id, roomId: room.id, setupMinutes: 30 }, { eventId: ev.id, roomId: hall.id }] });
    expect(chapel).toMatchObject({ status: 'approved', setupMinutes: 30, quantity: 1, requestedBy: c.personId });
    expect(hallBooking).toMatchObject({ status: 'pending' });
    expect((await call(t.app, 'POST', '/content/eventBookings', { token: c.editor, body: { eventId: ev.id } })).json().errors[0]).toMatchObject({ param: 'roomId' });
    expect((await call(t.app, 'POST', '/content/eventBookings', { token: church().editor, body: { eventId: ev.id, roomId: room.id } })).json().errors[0]).toMatchObject({ param: 'eventId' });

    const forEvent = await ok(t.app, 'GET', `/content/eventBookings/event/${ev.id}`, { token: c.anyone });
    expect(forEvent.map((b: { roomName: string }) => b.roomName)).toEqual(['Chapel', 'Hall']);
    expect((await call(t.app, 'GET', `/content/eventBookings/event/${ev.id}`, { token: church().anyone })).statusCode).toBe(404);

    const pending = await ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.editor });
    expect(pending).toEqual([expect.objectContaining({ id: hallBooking.id, eventTitle: 'Youth night', roomName: 'Hall', conflicts: [] })]);
    // Someone outside the approval group sees none and resolves none; a member of it does both.
    const approver = randomUUID();
    t.membership.groupsOf.set(approver, [hall.approvalGroupId]);
    expect(await ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.anyone })).toEqual([]);
    expect((await call(t.app, 'POST', `/content/eventBookings/${hallBooking.id}/approve`, { token: c.anyone, body: {} })).statusCode).toBe(401);
    expect((await ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.tokenOf(approver) })).map((b: { id: string }) => b.id)).toEqual([hallBooking.id]);
    const approved = await ok(t.app, 'POST', `/content/eventBookings/${hallBooking.id}/approve`, { token: c.tokenOf(approver), body: {} });
    expect(approved).toMatchObject({ status: 'approved', resolvedBy: approver });
    await t.drain();
    const notices = t.deps.queue.handedOff.filter((j) => j.name === 'messaging.notifyPeople').map((j) => j.data as { churchId: string; personIds: string[]; message: string });
    expect(notices.filter((n) => n.churchId === c.churchId).slice(0, 1)).toEqual([expect.objectContaining({ personIds: [c.personId], message: 'Your request for Hall for "Youth night" was approved.' })]);
    // The leader moving the approved booking's times sends it back to the approval group; an editor's change does not.
    const [retimed] = await ok(t.app, 'POST', '/content/eventBookings', { token: leaderToken, body: { id: hallBooking.id, setupMinutes: 15 } });
    expect(retimed).toMatchObject({ status: 'pending', setupMinutes: 15, resolvedBy: null });
    await ok(t.app, 'POST', `/content/eventBookings/${hallBooking.id}/approve`, { token: c.editor, body: {} });
    expect((await ok(t.app, 'POST', '/content/eventBookings', { token: c.editor, body: { id: hallBooking.id, setupMinutes: 20 } }))[0]).toMatchObject({ status: 'approved', setupMinutes: 20 });
    expect((await call(t.app, 'POST', `/content/eventBookings/${hallBooking.id}/maybe`, { token: c.editor, body: {} })).statusCode).toBe(400);
    expect((await call(t.app, 'POST', `/content/eventBookings/${hallBooking.id}/reject`, { token: church().editor, body: {} })).statusCode).toBe(404);

    // The availability calendar (editors) carries each booking with its event's times.
    const calendar = await ok(t.app, 'GET', `/content/eventBookings/calendar?startTime=${at(1, 1, 0)}&endTime=${at(12, 1, 0)}&roomId=${room.id}`, { token: c.editor });
    expect(calendar).toEqual([expect.objectContaining({ id: chapel.id, eventTitle: 'Youth night', eventStart: at(2, 5, 23), eventEnd: at(2, 6, 1), roomName: 'Chapel', status: 'approved' })]);
    expect((await call(t.app, 'GET', '/content/eventBookings/calendar', { token: c.anyone })).statusCode).toBe(401);

    // Updating keeps what is booked; deleting is for editors, the event's leaders and whoever asked.
    const [moved] = await ok(t.app, 'POST', '/content/eventBookings', { token: c.editor, body: { ...chapel, setupMinutes: null, startTime: at(2, 5, 22), endTime: at(2, 6, 2) } });
    expect(moved).toMatchObject({ id: chapel.id, setupMinutes: null, startTime: at(2, 5, 22) });
    expect((await call(t.app, 'POST', '/content/eventBookings', { token: c.editor, body: { id: chapel.id, roomId: hall.id } })).statusCode).toBe(400);
    expect((await call(t.app, 'DELETE', `/content/eventBookings/${chapel.id}`, { token: stranger })).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/content/eventBookings/${chapel.id}`, { token: church().editor })).statusCode).toBe(404);
    await ok(t.app, 'DELETE', `/content/eventBookings/${chapel.id}`, { token: leaderToken });
    expect((await ok(t.app, 'GET', `/content/eventBookings/event/${ev.id}`, { token: c.anyone })).map((b: { id: string }) => b.id)).toEqual([hallBooking.id]);
    await t.drain();
    expect(reported().filter((r) => r.entityType === 'eventBooking' && r.churchId === c.churchId).map((r) => r.action).sort()).toEqual(['approved', 'approved', 'created', 'created', 'destroyed', 'updated', 'updated', 'updated']);
  });
});

describe('GET /content/eventBookings/pending', () => {
  it('lists every waiting booking with its own conflicts, from a fixed number of statements, and only the church\'s', async () => {
    const { c, groupId, hall } = await setup();
    const [kit] = await ok(t.app, 'POST', '/content/resources', { token: c.editor, body: { name: 'Sound kit', quantity: 1, approvalGroupId: hall.approvalGroupId } });
    const leader = c.token([], { leaderGroupIds: [groupId] });
    const event = async (title: string, start: string, end: string) => (await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title, start, end } }))[0];
    const worship = await event('Worship', at(3, 7, 15), at(3, 7, 16));
    const choir = await event('Choir', at(3, 7, 15, 30), at(3, 7, 17));
    const band = await event('Band', at(3, 7, 16, 30), at(3, 7, 18));
    const youth = await event('Youth', at(4, 4, 19), at(4, 4, 21));
    // an editor's bookings are approved at once; a leader's of the hall and the kit wait for the approval group
    await ok(t.app, 'POST', '/content/eventBookings', { token: c.editor, body: [{ eventId: worship.id, roomId: hall.id }, { eventId: worship.id, resourceId: kit.id, quantity: 1 }] });
    const [choirHall, choirKit] = await ok(t.app, 'POST', '/content/eventBookings', { token: leader, body: [{ eventId: choir.id, roomId: hall.id }, { eventId: choir.id, resourceId: kit.id, quantity: 1 }] });
    const [bandHall] = await ok(t.app, 'POST', '/content/eventBookings', { token: leader, body: [{ eventId: band.id, roomId: hall.id }] });
    const [youthHall] = await ok(t.app, 'POST', '/content/eventBookings', { token: leader, body: [{ eventId: youth.id, roomId: hall.id }] });
    const [floors] = await ok(t.app, 'POST', '/content/calendarBlockouts', { token: c.editor, body: { roomId: hall.id, startTime: at(4, 4, 0), endTime: at(4, 5, 0), reason: 'Floors' } });
    await ok(t.app, 'POST', '/content/calendarBlockouts', { token: c.editor, body: { roomId: hall.id, startTime: at(11, 1, 0), endTime: at(11, 2, 0), reason: 'Later' } });

    // Another church books the same times: nothing of it shows here.
    const other = await setup();
    const [theirs] = await ok(t.app, 'POST', '/content/events', { token: other.c.editor, body: { groupId: other.groupId, title: 'Theirs', start: at(3, 7, 15), end: at(3, 7, 16) } });
    await ok(t.app, 'POST', '/content/eventBookings', { token: other.c.token([], { leaderGroupIds: [other.groupId] }), body: [{ eventId: theirs.id, roomId: other.hall.id }] });

    const answered = await ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.editor });
    // by the time they were asked for: the choir's two (one request, the same instant, then by id), the band, the youth
    expect(answered.map((b: { id: string }) => b.id).slice(0, 2).sort()).toEqual([choirHall.id, choirKit.id].sort());
    const byId = new Map(answered.map((b: { id: string }) => [b.id, b]));
    const pending = [choirHall, choirKit, bandHall, youthHall].map((b) => byId.get(b.id) as Record<string, unknown>);
    expect(answered.map((b: { id: string }) => b.id).slice(2)).toEqual([bandHall.id, youthHall.id]);
    type Conflict = { type: string; conflictingEventTitle?: string; blockoutId?: string; resourceId?: string };
    const conflicts = (i: number) => (pending[i].conflicts as Conflict[]).map((x) => x.conflictingEventTitle ?? x.blockoutId ?? x.resourceId).sort();
    // the choir's hall clashes with worship (approved) and the band (waiting), never with the choir's own kit
    expect(conflicts(0)).toEqual(['Band', 'Worship']);
    expect(pending[1].conflicts).toEqual([expect.objectContaining({ type: 'resource', resourceId: kit.id, message: expect.stringContaining('Only 0 of 1 "Sound kit"') })]);
    expect(conflicts(2)).toEqual(['Choir']);
    expect(pending[3].conflicts).toEqual([expect.objectContaining({ type: 'blockout', blockoutId: floors.id, roomId: hall.id })]);
    expect(pending[0]).toMatchObject({ eventTitle: 'Choir', roomName: 'Hall', roomApprovalGroupId: hall.approvalGroupId, status: 'pending' });
    expect((await ok(t.app, 'GET', '/content/eventBookings/pending', { token: other.c.editor })).map((b: { eventTitle: string }) => b.eventTitle)).toEqual(['Theirs']);

    // Three more waiting bookings cost no more statements.
    const before = await statementsFor(c.churchId, () => ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.editor }));
    for (const title of ['One', 'Two', 'Three']) {
      const ev = await event(title, at(5, 2, 10), at(5, 2, 11));
      await ok(t.app, 'POST', '/content/eventBookings', { token: leader, body: [{ eventId: ev.id, roomId: hall.id }, { eventId: ev.id, resourceId: kit.id, quantity: 1 }] });
    }
    // the list, the zone, the events and their exceptions, the bookings of what they name with their events'
    // exceptions, the blockouts, the rooms' and resources' names: nine
    expect(before).toBeLessThanOrEqual(9);
    const more = await ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.editor });
    expect(more).toHaveLength(10);
    expect(await statementsFor(c.churchId, () => ok(t.app, 'GET', '/content/eventBookings/pending', { token: c.editor }))).toBe(before);
  });
});

describe('POST /content/events/ical without the private-address setting', () => {
  it('refuses to read a feed on a loopback address (SSRF rules) and writes nothing', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const res = await call(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { url: 'http://127.0.0.1:9/church.ics', groupId } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'url' });
    expect((await call(t.app, 'POST', '/content/events/ical', { token: c.editor, body: { url: 'file:///etc/passwd', groupId } })).statusCode).toBe(400);
    expect(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.anyone })).toEqual([]);
  });
});
