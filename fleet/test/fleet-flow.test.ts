import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFleet, type Fleet } from '../src/fleet';

// One church's first day, end to end through the gateway over real HTTP: identity, people and groups in
// membership, check-in in attendance, and the signed internal calls between the two services.
describe('a church’s first check-in across the fleet', () => {
  let fleet: Fleet;
  let dataDir: string;
  let token: string;
  const first: Record<string, string> = {};
  const api = async (method: string, url: string, body?: unknown, auth = token) => {
    const res = await fetch(`${fleet.url}${url}`, {
      method,
      headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fleet-flow-'));
    fleet = await startFleet({ port: 0, dataDir, logLevel: 'silent', env: { RATE_LIMIT_ENABLED: 'false' } });
  }, 300_000);
  afterAll(async () => {
    await fleet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, logs in from the welcome email, and creates a church', async () => {
    const reg = await api('POST', '/membership/users/register', { email: 'ada@example.org', firstName: 'Ada', lastName: 'Admin', appName: 'Church', appUrl: 'https://app.example.org' }, '');
    expect(reg.status).toBe(200);
    expect(reg.body).toEqual({ id: expect.any(String), firstName: 'Ada', lastName: 'Admin', email: 'ada@example.org' });
    let mail: string[] = [];
    for (let i = 0; i < 50 && !mail.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      mail = readdirSync(path.join(dataDir, 'mail'));
    }
    const welcome = JSON.parse(readFileSync(path.join(dataDir, 'mail', mail[0]!), 'utf8'));
    expect(welcome.to).toBe('ada@example.org');
    const authGuid = /auth=([\w-]+)/.exec(welcome.html)![1];
    const login = await api('POST', '/membership/users/login', { authGuid }, '');
    expect(login.status).toBe(200);
    const added = await api('POST', '/membership/churches/add', { name: 'Grace Church', address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' }, login.body.token);
    expect(added.status).toBe(200);
    const relogin = await api('POST', '/membership/users/login', { jwt: login.body.token }, '');
    expect(relogin.body.churches.map((c: { church: { name: string } }) => c.church.name)).toEqual(['Grace Church']);
    expect(relogin.body.churches[0].apis.map((a: { keyName: string }) => a.keyName)).toEqual(expect.arrayContaining(['MembershipApi', 'AttendanceApi']));
    token = relogin.body.token;
  });

  it('checks a family in and finds them again from membership through attendance', async () => {
    const [kid, parent] = (await api('POST', '/membership/people', [{ firstName: 'Kim', lastName: 'Lee' }, { firstName: 'Sam', lastName: 'Lee' }])).body;
    const [group] = (await api('POST', '/membership/groups', { name: 'Kids Church', trackAttendance: true })).body;
    expect((await api('POST', '/membership/groupmembers', [{ groupId: group.id, personId: kid.id }, { groupId: group.id, personId: parent.id, leader: true }])).status).toBe(200);

    const [campus] = (await api('POST', '/attendance/campuses', { name: 'Main' })).body;
    const [service] = (await api('POST', '/attendance/services', { campusId: campus.id, name: 'Sunday' })).body;
    const [time] = (await api('POST', '/attendance/servicetimes', { serviceId: service.id, name: '9:00' })).body;
    expect((await api('POST', '/attendance/groupservicetimes', { groupId: group.id, serviceTimeId: time.id })).status).toBe(200);

    const checkin = await api('POST', `/attendance/visits/checkin?serviceId=${service.id}&peopleIds=${kid.id}`, [
      { personId: kid.id, visitSessions: [{ session: { serviceTimeId: time.id, groupId: group.id } }] },
    ]);
    expect(checkin.status).toBe(200);
    expect(checkin.body.securityCode).toMatch(/^[A-Z0-9]{4}$/);
    const sessionId = checkin.body.visits[0].visitSessions[0].sessionId;
    Object.assign(first, { kid: kid.id, group: group.id, campus: campus.id, service: service.id, session: sessionId });

    // membership → attendance (signed internal call): who attended this service?
    const attendees = await api('GET', `/membership/people/attendance?serviceId=${service.id}`);
    expect(attendees.status).toBe(200);
    expect(attendees.body.map((p: { id: string }) => p.id)).toEqual([kid.id]);

    // membership → attendance: groups meeting at this service time.
    const groups = await api('GET', `/membership/groups/search?serviceTimeId=${time.id}`);
    expect(groups.body.map((g: { id: string }) => g.id)).toEqual([group.id]);

    // attendance → membership (signed internal call): the roster with names, present and absent.
    const download = await api('GET', `/attendance/visitsessions/download/${sessionId}`);
    expect(download.status).toBe(200);
    const rows = download.body.map((r: { personId: string; personName: string; status: string }) => [r.personName, r.status]).sort();
    expect(rows).toEqual([
      ['Kim Lee', 'present'],
      ['Sam Lee', 'absent'],
    ]);

    // Attendance keeps the roster and revalidates it: a new member and a renamed one show in the next download.
    const [aunt] = (await api('POST', '/membership/people', [{ firstName: 'Ana', lastName: 'Lee' }])).body;
    await api('POST', '/membership/groupmembers', [{ groupId: group.id, personId: aunt.id }]);
    await api('POST', '/membership/people', [{ id: parent.id, firstName: 'Samuel' }]);
    const again = await api('GET', `/attendance/visitsessions/download/${sessionId}`);
    expect(again.body.map((r: { personName: string; status: string }) => [r.personName, r.status]).sort()).toEqual([
      ['Ana Lee', 'absent'],
      ['Kim Lee', 'present'],
      ['Samuel Lee', 'absent'],
    ]);
  });

  it('keeps a second church out of the first church’s data on every service', async () => {
    const added = await api('POST', '/membership/churches/add', { name: 'Hope Chapel', address1: '2 Oak St', city: 'Salem', state: 'OR', zip: '97301', country: 'US' });
    const selected = await api('POST', '/membership/churches/select', { churchId: added.body.id });
    expect(selected.status).toBe(200);
    const other = selected.body.token as string;
    expect((await api('GET', '/attendance/campuses', undefined, other)).body).toEqual([]);
    expect((await api('GET', `/attendance/campuses/${first.campus}`, undefined, other)).status).toBe(404);
    expect((await api('GET', `/attendance/visitsessions/download/${first.session}`, undefined, other)).status).toBe(404);
    expect((await api('GET', `/membership/people/${first.kid}`, undefined, other)).status).toBe(404);
    expect((await api('GET', `/membership/groups/${first.group}`, undefined, other)).status).toBe(404);
    expect((await api('GET', `/membership/people/attendance?serviceId=${first.service}`, undefined, other)).body).toEqual([]);
    // A write naming the first church's campus changes nothing there.
    expect((await api('POST', '/attendance/campuses', { id: first.campus, name: 'Taken' }, other)).status).toBe(404);
    expect((await api('GET', `/attendance/campuses/${first.campus}`)).body.name).toBe('Main');
    expect((await api('GET', '/membership/people', undefined, '')).status).toBe(401);
  });
});
