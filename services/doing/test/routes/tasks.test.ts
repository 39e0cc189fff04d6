import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { call } from '@church/common/testing';
import { makeChurch, person, useDoing } from '../setup';

const t = useDoing({ watchTransactions: true });
// doing never calls membership with a transaction open (an approval's changes reach membership before it)
afterEach(() => expect(t.membership.calledInTransaction.splice(0)).toEqual([]));
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('/doing/tasks', () => {
  it('numbers tasks per church and lists the caller\'s open and closed tasks (own, their groups\', created by them)', async () => {
    const c = makeChurch();
    const groupId = randomUUID();
    t.membership.addPeople(c.churchId, [person({ id: c.personId, groupIds: [groupId] })]);
    const token = c.token();
    const saved = await call(t.app, 'POST', '/doing/tasks', {
      token,
      body: [
        { title: 'Mine', assignedToType: 'person', assignedToId: c.personId },
        { title: 'Group', assignedToType: 'group', assignedToId: groupId },
        { title: 'Someone else', assignedToType: 'person', assignedToId: randomUUID(), createdByType: 'person', createdById: randomUUID() },
      ],
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().map((x: { taskNumber: number; status: string }) => [x.taskNumber, x.status])).toEqual([
      [1, 'Open'],
      [2, 'Open'],
      [3, 'Open'],
    ]);
    expect((await call(t.app, 'POST', '/doing/tasks', { token: makeChurch().token(), body: { title: 'Other church' } })).json()[0].taskNumber).toBe(1);
    const open = (await call(t.app, 'GET', '/doing/tasks', { token })).json();
    expect(open.map((x: { title: string }) => x.title).sort()).toEqual(['Group', 'Mine']);
    const [mine] = saved.json();
    const closed = await call(t.app, 'POST', '/doing/tasks', { token, body: { id: mine.id, status: 'Closed' } });
    expect(closed.json()[0].dateClosed).not.toBeNull();
    expect((await call(t.app, 'GET', '/doing/tasks/closed', { token })).json().map((x: { title: string }) => x.title)).toEqual(['Mine']);
    expect((await call(t.app, 'GET', `/doing/tasks/${mine.id}`, { token })).json().status).toBe('Closed');
    expect((await call(t.app, 'GET', `/doing/tasks/${mine.id}`, { token: makeChurch().token() })).statusCode).toBe(404);
    const timeline = await call(t.app, 'GET', `/doing/tasks/timeline?taskIds=${saved.json()[1].id},${mine.id}`, { token });
    expect(timeline.json().map((x: { title: string }) => x.title)).toEqual(['Mine', 'Group']);
    const groups = await call(t.app, 'POST', '/doing/tasks/loadForGroups', { token, body: { groupIds: [groupId], status: 'Open' } });
    expect(groups.json().map((x: { title: string }) => x.title)).toEqual(['Group']);
    expect((await call(t.app, 'POST', '/doing/tasks/loadForGroups', { token, body: { groupIds: ['x'] } })).json().errors[0].param).toBe('groupIds[0]');
  });

  // B1Admin's task list: `POST /tasks/loadForGroups {groupIds, status}` with the caller's groups and the tab's status
  // ("Open" or "Closed"); its `GET /tasks/loadForGroups` is only the query's cache key and never sent.
  it('loadForGroups answers the tasks of the groups named in the status asked, not cards, not another church\'s', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const [team, elders] = [randomUUID(), randomUUID()];
    t.membership.addGroups(c.churchId, team, elders);
    t.membership.addGroups(other.churchId, team);
    const token = c.token();
    const saved = (await call(t.app, 'POST', '/doing/tasks', {
      token,
      body: [
        { title: 'Team open', assignedToType: 'group', assignedToId: team },
        { title: 'Team closed', assignedToType: 'group', assignedToId: team, status: 'Closed' },
        { title: 'Elders', assignedToType: 'group', assignedToId: elders },
        { title: 'Person', assignedToType: 'person', assignedToId: c.personId },
      ],
    })).json();
    await call(t.app, 'POST', '/doing/tasks', { token: other.token(), body: { title: 'Theirs', assignedToType: 'group', assignedToId: team } });
    const load = (body: unknown, as = token) => call(t.app, 'POST', '/doing/tasks/loadForGroups', { token: as, body });
    const open = await load({ groupIds: [team], status: 'Open' });
    expect(open.statusCode).toBe(200);
    expect(open.json()).toEqual([expect.objectContaining({ id: saved[0].id, title: 'Team open', assignedToType: 'group', assignedToId: team, status: 'Open', taskNumber: 1 })]);
    expect((await load({ groupIds: [team, elders], status: 'Closed' })).json().map((x: { title: string }) => x.title)).toEqual(['Team closed']);
    expect((await load({ groupIds: [team, elders], status: 'Open' })).json().map((x: { title: string }) => x.title)).toEqual(['Elders', 'Team open']);
    expect((await load({ groupIds: [team], status: 'Open' }, other.token([]))).json().map((x: { title: string }) => x.title)).toEqual(['Theirs']);
    expect((await load({ groupIds: [], status: 'Open' })).json()).toEqual([]);
    expect((await call(t.app, 'POST', '/doing/tasks/loadForGroups', { body: { groupIds: [team], status: 'Open' } })).statusCode).toBe(401);
  });

  it('gives concurrent saves distinct task numbers', async () => {
    const c = makeChurch();
    const saves = await Promise.all(Array.from({ length: 6 }, (_, i) => call(t.app, 'POST', '/doing/tasks', { token: c.token(), body: { title: `T${i}` } })));
    expect(saves.map((r) => r.json()[0].taskNumber).sort((x: number, y: number) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('directory updates: photo stored, the person\'s open update found, approval by staff applies the changes in membership', async () => {
    const c = makeChurch();
    const token = c.token();
    const res = await call(t.app, 'POST', '/doing/tasks?type=directoryUpdate', {
      token,
      body: { associatedWithLabel: 'Pat Doe', data: [{ field: 'mobilePhone', value: '555-0100' }, { field: 'lastName', value: 'Smith' }, { field: 'photo', value: PNG }] },
    });
    expect(res.statusCode).toBe(200);
    const task = res.json()[0];
    expect(task).toMatchObject({ taskType: 'directoryUpdate', associatedWithType: 'person', associatedWithId: c.personId, status: 'Open' });
    const photo = (task.data as { photo: string }).photo;
    expect(photo).toMatch(/^http.*\.png$/);
    expect(existsSync(path.join(t.config.DATA_DIR, 'files', photo.split('/files/')[1]!))).toBe(true);
    // B1App's profile page: a list, each `data` the JSON text of [{field, label, value}]
    const pending = (await call(t.app, 'GET', `/doing/tasks/directoryUpdate/${c.personId}`, { token })).json();
    expect(pending.map((x: { id: string }) => x.id)).toEqual([task.id]);
    const byField = (a: { field: string }, b: { field: string }) => a.field.localeCompare(b.field);
    expect(JSON.parse(pending[0].data).sort(byField)).toEqual([
      { field: 'lastName', label: 'Last Name', value: 'Smith' },
      { field: 'mobilePhone', label: 'Mobile Phone', value: '555-0100' },
      { field: 'photo', label: 'Photo', value: photo },
    ]);
    // another church's staff find nothing of this church's person
    expect((await call(t.app, 'GET', `/doing/tasks/directoryUpdate/${c.personId}`, { token: makeChurch().token(['People.Edit']) })).json()).toEqual([]);

    // the member cannot approve their own update
    const self = await call(t.app, 'POST', '/doing/tasks', { token, body: { id: task.id, status: 'Closed', approved: true } });
    expect(self.statusCode).toBe(401);
    expect(t.membership.updates.filter((u) => u.personId === c.personId)).toEqual([]);

    // membership down: 502 and the task stays open
    t.membership.setDown(true);
    const staff = c.tokenOf(randomUUID(), ['People.Edit']);
    try {
      expect((await call(t.app, 'POST', '/doing/tasks', { token: staff, body: { id: task.id, status: 'Closed', approved: true } })).statusCode).toBe(502);
    } finally {
      t.membership.setDown(false);
    }
    expect((await call(t.app, 'GET', `/doing/tasks/${task.id}`, { token })).json().status).toBe('Open');

    const approved = await call(t.app, 'POST', '/doing/tasks', { token: staff, body: { id: task.id, status: 'Closed', approved: true } });
    expect(approved.statusCode).toBe(200);
    expect(approved.json()[0]).toMatchObject({ status: 'Closed', resolution: 'approved' });
    expect(t.membership.updates.filter((u) => u.personId === c.personId)).toEqual([
      { churchId: c.churchId, personId: c.personId, changes: { lastName: 'Smith', photo, contactInfo: { mobilePhone: '555-0100' } } },
    ]);
    expect((await call(t.app, 'GET', `/doing/tasks/directoryUpdate/${c.personId}`, { token })).json()).toEqual([]);
  });

  it("a person's open directory updates are read by the person and by staff who may approve them (People.Edit); anyone else reads none", async () => {
    const c = makeChurch();
    const own = c.token([]);
    const filed = await call(t.app, 'POST', '/doing/tasks?type=directoryUpdate', { token: own, body: { data: { mobilePhone: '555-0199' } } });
    expect(filed.statusCode).toBe(200);
    const url = `/doing/tasks/directoryUpdate/${c.personId}`;
    const read = (token: string) => call(t.app, 'GET', url, { token });
    // the person themselves (B1App's own profile), and staff who may approve it
    for (const token of [own, c.tokenOf(randomUUID(), ['People.Edit'])]) {
      const res = await read(token);
      expect([res.statusCode, res.json().map((x: { id: string }) => x.id)]).toEqual([200, [filed.json()[0].id]]);
    }
    // another member of the church, and a coordinator without People.Edit: none of them, nothing of the requested
    // details. B1App's directory asks for every profile a member opens (Person.tsx) and shows an "Access denied"
    // alert on any error, so the answer is the empty list the profile shows as "no changes requested", not a 401.
    for (const token of [c.tokenOf(randomUUID(), []), c.tokenOf(randomUUID(), ['Plans.Edit'])]) {
      const res = await read(token);
      expect([res.statusCode, res.json()]).toEqual([200, []]);
      expect(res.body).not.toContain('555-0199');
    }
  });

  it("another member reads no one's directory update by id, on the timeline or among a group's tasks", async () => {
    const c = makeChurch();
    const own = c.token([]);
    const filed = (await call(t.app, 'POST', '/doing/tasks?type=directoryUpdate', { token: own, body: { data: { mobilePhone: '555-0142' } } })).json()[0];
    const member = c.tokenOf(randomUUID(), []);
    const byId = await call(t.app, 'GET', `/doing/tasks/${filed.id}`, { token: member });
    expect(byId.statusCode).toBe(401);
    expect(byId.body).not.toContain('555-0142');
    const onTimeline = await call(t.app, 'GET', `/doing/tasks/timeline?taskIds=${filed.id}`, { token: member });
    expect([onTimeline.statusCode, onTimeline.json()]).toEqual([200, []]);
    if (filed.assignedToType === 'group') {
      const ofGroup = await call(t.app, 'POST', '/doing/tasks/loadForGroups', { token: member, body: { groupIds: [filed.assignedToId], status: 'Open' } });
      expect(ofGroup.body).not.toContain('555-0142');
    }
    // the person themselves and staff who may approve it still read it
    for (const token of [own, c.tokenOf(randomUUID(), ['People.Edit'])]) {
      const res = await call(t.app, 'GET', `/doing/tasks/${filed.id}`, { token });
      expect([res.statusCode, res.json().id]).toEqual([200, filed.id]);
    }
  });

  it('a rejected directory update changes nothing; bad changes are refused by field', async () => {
    const c = makeChurch();
    const token = c.token();
    const task = (await call(t.app, 'POST', '/doing/tasks?type=directoryUpdate', { token, body: { data: { email: 'new@example.test' } } })).json()[0];
    const staff = c.tokenOf(randomUUID(), ['People.Edit']);
    await call(t.app, 'POST', '/doing/tasks', { token: staff, body: { id: task.id, status: 'Closed', approved: false } });
    expect(t.membership.updates.filter((u) => u.personId === c.personId)).toEqual([]);
    const bad = await call(t.app, 'POST', '/doing/tasks?type=directoryUpdate', { token, body: { data: { passwordHash: 'x' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('data.passwordHash');
    const svg = await call(t.app, 'POST', '/doing/tasks?type=directoryUpdate', { token, body: { data: { photo: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=' } } });
    expect(svg.json().errors[0].param).toBe('data.photo');
    expect((await call(t.app, 'POST', '/doing/tasks?type=other', { token, body: {} })).statusCode).toBe(400);
  });
});
