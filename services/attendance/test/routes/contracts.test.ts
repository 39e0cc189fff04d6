import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { campuses, visits } from '../../src/db/schema';
import { fakeMembership, linkGroup, makeChurch, makePlaces, makeSession, makeVisit, useAttendance } from '../setup';

// Contract tests: the shapes ChurchApps' own apps (B1Admin, B1App) send and read, each named for the client file
// that depends on it, so a later change cannot break the apps silently.
// Membership's group list answers through a fake (the place tree carries each time's groups).
const membership = fakeMembership();
const t = useAttendance({ overrides: { internal: membership.internal } });

describe('campuses under membership (the apps manage campuses there; attendance owns the rows)', () => {
  it('B1Admin:src/settings/components/CampusEdit.tsx saves a new campus as [{...form}] and then the whole record it read', async () => {
    const c = makeChurch();
    const token = c.token(['Services.Edit']);
    // a new campus: the form's values, empty fields as "" (no id at all: the editor starts from {})
    const form = { name: 'North', address1: '1 Main St', address2: '', city: 'Tulsa', state: 'OK', zip: '', timezone: '', website: '' };
    const created = await call(t.app, 'POST', '/membership/campuses', { token, body: [form] });
    expect(created.statusCode).toBe(200);
    const [campus] = created.json();
    expect(campus).toEqual({ id: expect.any(String), churchId: c.churchId, name: 'North', address1: '1 Main St', address2: '', city: 'Tulsa', state: 'OK', zip: '', timezone: null, website: '' });

    // an edit: { ...props.campus, ...values } — the record as listed (churchId, and an importKey the Api had) plus the form
    const edited = await call(t.app, 'POST', '/membership/campuses', { token, body: [{ ...campus, importKey: null, name: 'North Campus', timezone: 'America/Chicago' }] });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toEqual([{ ...campus, name: 'North Campus', timezone: 'America/Chicago' }]);

    // and the delete button
    expect((await call(t.app, 'DELETE', `/membership/campuses/${campus.id}`, { token })).json()).toEqual({});
    expect((await t.app.db.select().from(campuses).where(eq(campuses.id, campus.id)))[0]!.removed).toBe(true);
  });

  it('B1Admin:src/settings/components/CampusesSection.tsx (and hooks/useCampuses.ts) lists id, name, city, state, timezone', async () => {
    const c = makeChurch();
    const token = c.token(['Services.Edit']);
    await call(t.app, 'POST', '/membership/campuses', { token, body: [{ name: 'South', city: 'Tulsa', state: 'OK', timezone: 'America/Chicago' }] });
    const res = await call(t.app, 'GET', '/membership/campuses', { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: expect.any(String), name: 'South', city: 'Tulsa', state: 'OK', timezone: 'America/Chicago' })]);
  });

  it('B1App:src/components/groups/GroupsBrowser.tsx reads /membership/campuses/public/:churchId anonymously: [{id, name}]', async () => {
    const c = makeChurch();
    const [campus] = (await call(t.app, 'POST', '/membership/campuses', { token: c.token(['Services.Edit']), body: [{ name: 'Main', city: 'Tulsa' }] })).json();
    const res = await call(t.app, 'GET', `/membership/campuses/public/${c.churchId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: campus.id, name: 'Main' }]);
  });
});

describe('errors the apps show (ApiHelper throws new Error(json.errors[0]))', () => {
  it('B1Admin:src/settings/components/CampusEdit.tsx shows errors[0] as a sentence when the save is refused', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'POST', '/membership/campuses', { token: c.token(), body: [{ name: 'North' }] });
    expect(res.statusCode).toBe(401);
    expect(typeof res.json().errors[0]).toBe('string');
    const missing = await call(t.app, 'DELETE', `/membership/campuses/${c.churchId}`, { token: c.token(['Services.Edit']) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ errors: ['Campus not found'] });
  });
});

describe("a group's sessions and who attended them", () => {
  // How B1Admin:src/groups/components/GroupSessions.tsx keeps the sessions of a year: a name written as a date.
  const yearsOf = (names: string[]) => [...new Set(names.flatMap((n) => n.match(/\b(20\d{2})\b/)?.[1] ?? []))];
  const ofYear = (names: string[], year: string) => names.filter((n) => n.includes(`/${year}`) || n.includes(`, ${year}`));

  it('B1Admin:src/groups/components/GroupSessions.tsx reads each session displayName as a date it recognises (/YYYY), newest first', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId, { time: '9:00 AM' });
    const groupId = randomUUID();
    await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2025-12-28');
    await makeSession(t, c.churchId, groupId, null, '2026-01-04');
    const res = await call(t.app, 'GET', `/attendance/sessions?groupId=${groupId}`, { token: c.token(['Attendance.View']) });
    expect(res.statusCode).toBe(200);
    const sessions = res.json();
    expect(sessions.map((s: { displayName: string }) => s.displayName)).toEqual(['01/04/2026', '12/28/2025 - 9:00 AM']);
    // the spec's fields stay
    expect(sessions[1]).toEqual({ id: expect.any(String), groupId, serviceTimeId: p.serviceTimeId, sessionDate: '2025-12-28T00:00:00.000Z', serviceTimeName: '9:00 AM', displayName: '12/28/2025 - 9:00 AM' });
    const names = sessions.map((s: { displayName: string }) => s.displayName);
    expect(yearsOf(names)).toEqual(['2026', '2025']);
    expect(ofYear(names, '2025')).toEqual(['12/28/2025 - 9:00 AM']);
    expect(ofYear(names, '2026')).toEqual(['01/04/2026']);
  });

  it('B1Admin:src/groups/components/SessionEdit.tsx creates a session, reloads it and saves it back; GroupSessions.tsx marks people present through visit.personId', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId, { time: '9:00' });
    const groupId = randomUUID();
    await linkGroup(t, c.churchId, groupId, p.serviceTimeId);
    const token = c.token(['Attendance.View', 'Attendance.Edit']);

    // the editor offers the group's service times by name
    const times = (await call(t.app, 'GET', `/attendance/groupservicetimes?groupId=${groupId}`, { token })).json();
    expect(times).toEqual([expect.objectContaining({ serviceTimeId: p.serviceTimeId, serviceTime: expect.objectContaining({ name: 'Main - Sunday - 9:00' }) })]);

    // a new session: { groupId, sessionDate: new Date(<html date>) , serviceTimeId }
    const created = await call(t.app, 'POST', '/attendance/sessions', { token, body: [{ groupId, sessionDate: new Date('2026-03-01'), serviceTimeId: p.serviceTimeId }] });
    expect(created.statusCode).toBe(200);
    const [session] = created.json();
    const listed = (await call(t.app, 'GET', `/attendance/sessions?groupId=${groupId}`, { token })).json();
    expect(listed).toEqual([expect.objectContaining({ id: session.id, displayName: '03/01/2026 - 9:00' })]);
    const loaded = (await call(t.app, 'GET', `/attendance/sessions/${session.id}`, { token })).json();
    expect(loaded).toMatchObject({ sessionDate: '2026-03-01T00:00:00.000Z', serviceTimeId: p.serviceTimeId });

    // saved back: the list item as read, the form's date and no service time (serviceTimeId: null)
    const saved = await call(t.app, 'POST', '/attendance/sessions', { token, body: [{ ...listed[0], groupId, sessionDate: new Date('2026-03-08'), serviceTimeId: null }] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual([{ id: session.id, groupId, serviceTimeId: null, sessionDate: '2026-03-08T00:00:00.000Z' }]);

    // mark a person present: { checkinTime, personId, visitSessions: [{ sessionId }] }
    const personId = randomUUID();
    const logged = await call(t.app, 'POST', '/attendance/visitsessions/log', { token, body: { checkinTime: new Date(), personId, visitSessions: [{ sessionId: session.id }] } });
    expect(logged.statusCode).toBe(200);
    expect(logged.json()).toEqual({});
    const present = (await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${session.id}`, { token })).json();
    expect(present).toEqual([expect.objectContaining({ id: expect.any(String), visitId: expect.any(String), sessionId: session.id, visit: { id: present[0].visitId, personId } })]);

    // remove them again: ?sessionId=&personId= (the visit goes with its last session)
    const removed = await call(t.app, 'DELETE', `/attendance/visitsessions?sessionId=${session.id}&personId=${personId}`, { token });
    expect(removed.statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${session.id}`, { token })).json()).toEqual([]);
    expect(await t.app.db.select().from(visits).where(eq(visits.personId, personId))).toEqual([]);
  });

  it('B1App:src/app/[sdSlug]/mobile/components/group/GroupAttendanceTab.tsx: a leader creates the day\'s session ({groupId, sessionDate: "YYYY-MM-DD"}) and reads visit.personId', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    const leader = c.token([], { leaderGroupIds: [groupId] });
    const created = await call(t.app, 'POST', '/attendance/sessions', { token: leader, body: [{ groupId, sessionDate: '2026-04-05' }] });
    expect(created.statusCode).toBe(200);
    const [session] = created.json();
    expect(session.sessionDate.slice(0, 10)).toBe('2026-04-05');
    const personId = randomUUID();
    await makeVisit(t, c.churchId, personId, null, '2026-04-05', [session.id]);
    const res = await call(t.app, 'GET', `/attendance/visitsessions?sessionId=${session.id}`, { token: leader });
    expect(res.json().map((v: { visit: { personId: string } }) => v.visit.personId)).toEqual([personId]);
  });

  it('B1Admin:src/groups/components/GroupHealthTab.tsx reads the trend with 0 for "any" filter, as {week, visits}', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const groupId = randomUUID();
    const session = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2026-03-01');
    await makeVisit(t, c.churchId, randomUUID(), p.serviceId, '2026-03-01', [session]);
    const res = await call(t.app, 'GET', `/attendance/attendancerecords/trend?campusId=0&serviceId=0&serviceTimeId=0&groupId=${groupId}`, { token: c.token(['Attendance.View Summary']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ week: '2026-03-01', count: 1, visits: 1 }]);
  });
});

describe('check-in label templates', () => {
  it('B1Admin:src/mobile/LabelsPage.tsx and components/LabelEditor.tsx: a starter saved, listed, set as default, deleted', async () => {
    const c = makeChurch();
    const token = c.token(['Attendance.Edit']);
    // LabelEditor's save of a starter: { ...tpl, width: Number(..), height: Number(..), content: JSON.stringify(blocks) }, no id
    const blocks = [{ id: 'k2j4x9a', type: 'field', field: 'securityCode', x: 55, y: 52, w: 40, h: 22, fontSize: 18, bold: true, align: 'right' }];
    const starter = { name: 'Name tag', labelType: 'nametag', width: 3.5, height: 1.1, content: JSON.stringify(blocks) };
    const created = await call(t.app, 'POST', '/attendance/labeltemplates', { token, body: [starter] });
    expect(created.statusCode).toBe(200);
    // the list reads id, name, labelType, width, height, isDefault and content (parsed back into blocks)
    const [listed] = (await call(t.app, 'GET', '/attendance/labeltemplates', { token })).json();
    expect(listed).toEqual({ id: created.json()[0].id, churchId: c.churchId, name: 'Name tag', labelType: 'nametag', width: 3.5, height: 1.1, isDefault: false, content: JSON.stringify(blocks) });
    expect(JSON.parse(listed.content)).toEqual(blocks);
    // "set default": [{ ...t, isDefault: true }]
    const defaulted = await call(t.app, 'POST', '/attendance/labeltemplates', { token, body: [{ ...listed, isDefault: true }] });
    expect(defaulted.json()).toEqual([{ ...listed, isDefault: true }]);
    // delete
    expect((await call(t.app, 'DELETE', `/attendance/labeltemplates/${listed.id}`, { token })).json()).toEqual({});
    expect((await call(t.app, 'GET', '/attendance/labeltemplates', { token })).json()).toEqual([]);
  });
});

describe('the groups health screen', () => {
  it('B1Admin:src/groups/GroupsHealthPage.tsx reads /attendancerecords/groupsummary as [{groupId, sessionCount, averageAttendance}]', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    const today = new Date().toISOString().slice(0, 10);
    const session = await makeSession(t, c.churchId, groupId, null, today);
    await makeVisit(t, c.churchId, randomUUID(), null, today, [session]);
    await makeVisit(t, c.churchId, randomUUID(), null, today, [session]);
    const res = await call(t.app, 'GET', '/attendance/attendancerecords/groupsummary', { token: c.token(['Attendance.View Summary']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ groupId, sessionCount: 1, totalVisits: 2, averageAttendance: 2, lastSessionDate: `${today}T00:00:00.000Z` }]);
  });
});

describe('attendance setup: campuses, services and service times entered as the staff app enters them', () => {
  it('B1Admin:src/attendance/components/AttendanceSetup.tsx (ServiceEdit.tsx, ServiceTimeEdit.tsx) saves new rows with id: "" and reads the tree as {campus, service, serviceTime} rows', async () => {
    const c = makeChurch();
    const token = c.token(['Services.Edit']);
    // the campus comes from the membership list (useCampuses)
    const [campus] = (await call(t.app, 'POST', '/membership/campuses', { token, body: [{ name: 'Main', address1: '', address2: '', city: '', state: '', zip: '', timezone: '', website: '' }] })).json();
    const [listed] = (await call(t.app, 'GET', '/membership/campuses', { token })).json();
    // a new campus shows on the setup screen before it has a service (a row with only campus: the screen offers "Add
    // Service" under it and tests service and serviceTime for absence)
    const bare = (await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token })).json();
    expect(bare).toEqual([{ campus: { id: campus.id, name: 'Main' } }]);
    expect(Object.keys(bare[0])).toEqual(['campus']);

    // "add service" under the campus: { id: "", campusId, name: "" } with the form's values over it
    const service = await call(t.app, 'POST', '/attendance/services', { token, body: [{ id: '', campusId: listed.id, name: 'Sunday' }] });
    expect(service.statusCode).toBe(200);
    expect(service.json()).toEqual([{ id: expect.any(String), churchId: c.churchId, campusId: campus.id, name: 'Sunday' }]);
    const serviceId = service.json()[0].id;
    // the tree shows the campus's service before it has a time: a row without serviceTime
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token })).json()).toEqual([
      { campus: { id: campus.id, name: 'Main' }, service: { id: serviceId, name: 'Sunday', campusId: campus.id } },
    ]);

    // "add service time": { id: "", serviceId, name: "" } with the form's values over it
    const time = await call(t.app, 'POST', '/attendance/servicetimes', { token, body: [{ id: '', serviceId, name: '9:00 AM' }] });
    expect(time.statusCode).toBe(200);
    expect(time.json()).toEqual([{ id: expect.any(String), serviceId, name: '9:00 AM' }]);
    const serviceTimeId = time.json()[0].id;
    const groupId = randomUUID();
    const group = membership.addGroup(c.churchId, groupId, 'Nursery');
    await linkGroup(t, c.churchId, groupId, serviceTimeId);

    // the setup groups rows by a.campus?.id and a.service.name, and shows a.serviceTime; AttendancePage counts rows with a serviceTime
    const tree = (await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token })).json();
    expect(tree).toEqual([
      { campus: { id: campus.id, name: 'Main' }, service: { id: serviceId, name: 'Sunday', campusId: campus.id }, serviceTime: { id: serviceTimeId, name: '9:00 AM', serviceId, groups: [group] } },
    ]);
    const row = tree[0];

    // editing a service or a time posts the tree's object back with the form's values: { ...a.service, ...values }
    const renamed = await call(t.app, 'POST', '/attendance/services', { token, body: [{ ...row.service, name: 'Sunday Morning', campusId: campus.id }] });
    expect(renamed.json()).toEqual([{ id: serviceId, churchId: c.churchId, campusId: campus.id, name: 'Sunday Morning' }]);
    const retimed = await call(t.app, 'POST', '/attendance/servicetimes', { token, body: [{ ...row.serviceTime, name: '9:30 AM', serviceId }] });
    expect(retimed.json()).toEqual([{ id: serviceTimeId, serviceId, name: '9:30 AM' }]);

    // and the delete buttons
    expect((await call(t.app, 'DELETE', `/attendance/servicetimes/${serviceTimeId}`, { token })).json()).toEqual({});
    expect((await call(t.app, 'DELETE', `/attendance/services/${serviceId}`, { token })).json()).toEqual({});
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token })).json()).toEqual([{ campus: { id: campus.id, name: 'Main' } }]);
    expect((await call(t.app, 'DELETE', `/membership/campuses/${campus.id}`, { token })).json()).toEqual({});
    expect((await call(t.app, 'GET', '/attendance/attendancerecords/tree', { token })).json()).toEqual([]);
  });

  it('B1Admin:src/attendance/components/ServiceEdit.tsx shows errors[0] of a refused save as a sentence, and a 400 names the field', async () => {
    const c = makeChurch();
    const refused = await call(t.app, 'POST', '/attendance/services', { token: c.token(), body: [{ id: '', campusId: '', name: 'Sunday' }] });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ errors: [expect.any(String)] });
    const invalid = await call(t.app, 'POST', '/attendance/servicetimes', { token: c.token(['Services.Edit']), body: [{ id: '', serviceId: '', name: '9:00' }] });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().errors[0]).toEqual({ msg: '[0].serviceId is required', param: '[0].serviceId', location: 'body' });
  });
});

describe("merging two people's attendance", () => {
  it('B1Admin:src/people/components/Merge.tsx posts each visit it read back with the other personId: a visit of the same service and day joins the one already there', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const [winner, loser] = [randomUUID(), randomUUID()];
    const session = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2026-02-01');
    const kept = await makeVisit(t, c.churchId, winner, p.serviceId, '2026-02-01');
    await makeVisit(t, c.churchId, loser, p.serviceId, '2026-02-01', [session]);
    const token = c.token(['Attendance.View', 'Attendance.Edit']);
    const [visit] = (await call(t.app, 'GET', `/attendance/visits?personId=${loser}`, { token })).json();
    const res = await call(t.app, 'POST', '/attendance/visits', { token, body: [{ ...visit, personId: winner }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: kept, personId: winner, visitSessions: [expect.objectContaining({ sessionId: session })] })]);
    expect((await call(t.app, 'GET', `/attendance/visits?personId=${loser}`, { token })).json()).toEqual([]);
  });
});
