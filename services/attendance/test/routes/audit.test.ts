import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { sessions, visitSessions, visits } from '../../src/db/schema';
import { fakeMembership, makeChurch, makePlaces, makeSession, makeVisit, useAttendance } from '../setup';

// Every write of attendance is reported to the church's audit log (and its webhooks) as `membership.changes` jobs,
// written in the write's transaction: crud()'s saves and deletes by themselves, the hand-written ones (visits,
// visit sessions, session deletes, label templates) through reportChanges. A check-in is reported only as the
// events the church listens for, and is no line of the audit log.
const people = fakeMembership();
const t = useAttendance({ overrides: { internal: people.internal } });

type Record_ = { churchId: string; entityType: string; entityId: string; action: string; event?: string; userId?: string | null; changes?: Record<string, { before: unknown; after: unknown }>; data?: Record<string, unknown> };
const jobs = () => t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').map((j) => (j.data as { records: Record_[] }).records);

/**
 * What a church's writes reported while `act` ran: the jobs (one per transaction), each its records. Jobs are
 * handed on in no set order (each transaction's relay runs shortly after its commit): compare them with `jobsOf`.
 */
async function reported(churchId: string, act: () => Promise<unknown>): Promise<Record_[][]> {
  await t.drain();
  const start = jobs().length;
  await act();
  await t.drain();
  return jobs()
    .slice(start)
    .map((records) => records.filter((r) => r.churchId === churchId))
    .filter((records) => records.length);
}
const brief = (r: Record_) => [r.entityType, r.action, r.event ?? null];
/** The jobs, each as its records' lines, in a fixed order (each job's own records keep theirs). */
const jobsOf = (jobs: unknown[][]) => jobs.map((job) => JSON.stringify(job)).sort();
/** The one record of these jobs that is `action` of `entityId`. */
const find = (records: Record_[][], entityId: string, action: string) => {
  const found = records.flat().filter((r) => r.entityId === entityId && r.action === action);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('the standard tables (crud)', () => {
  it('reports campus, service, service time and group link saves and deletes, with the fields that changed and who', async () => {
    const c = makeChurch();
    const userId = randomUUID();
    const edit = c.token(['Services.Edit'], { userId });
    let campusId = '';
    let serviceId = '';
    let timeId = '';
    let linkId = '';
    const records = await reported(c.churchId, async () => {
      campusId = (await call(t.app, 'POST', '/attendance/campuses', { token: edit, body: { name: 'Main' } })).json()[0].id;
      await call(t.app, 'POST', '/membership/campuses', { token: edit, body: { id: campusId, name: 'Main Campus', city: 'Springfield' } });
      serviceId = (await call(t.app, 'POST', '/attendance/services', { token: edit, body: { name: 'Sunday', campusId } })).json()[0].id;
      timeId = (await call(t.app, 'POST', '/attendance/servicetimes', { token: edit, body: { name: '9:00', serviceId } })).json()[0].id;
      linkId = (await call(t.app, 'POST', '/attendance/groupservicetimes', { token: edit, body: { groupId: randomUUID(), serviceTimeId: timeId } })).json()[0].id;
      await call(t.app, 'DELETE', `/attendance/groupservicetimes/${linkId}`, { token: edit });
      await call(t.app, 'DELETE', `/attendance/servicetimes/${timeId}`, { token: edit });
      await call(t.app, 'DELETE', `/attendance/services/${serviceId}`, { token: edit });
      await call(t.app, 'DELETE', `/membership/campuses/${campusId}`, { token: edit });
    });
    expect(jobsOf(records.map((job) => job.map((r) => [...brief(r), r.entityId])))).toEqual(
      jobsOf([
        [['campus', 'created', null, campusId]],
        [['campus', 'updated', null, campusId]],
        [['service', 'created', null, serviceId]],
        [['serviceTime', 'created', null, timeId]],
        [['groupServiceTime', 'created', null, linkId]],
        [['groupServiceTime', 'destroyed', null, linkId]],
        [['serviceTime', 'destroyed', null, timeId]],
        [['service', 'destroyed', null, serviceId]],
        [['campus', 'destroyed', null, campusId]],
      ]),
    );
    expect(find(records, campusId, 'updated')).toMatchObject({ userId, changes: { name: { before: 'Main', after: 'Main Campus' }, city: { before: null, after: 'Springfield' } } });
  });

  it('reports a session created as session.created, and a session deleted with the visit sessions and visits that went with it', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const groupId = randomUUID();
    const edit = c.token(['Attendance.Edit']);
    const personId = randomUUID();
    let sessionId = '';
    let visitId = '';
    const records = await reported(c.churchId, async () => {
      sessionId = (await call(t.app, 'POST', '/attendance/sessions', { token: edit, body: { groupId, serviceTimeId: p.serviceTimeId, sessionDate: '2024-05-05' } })).json()[0].id;
      await call(t.app, 'POST', '/attendance/sessions', { token: edit, body: { id: sessionId, sessionDate: '2024-05-12' } });
      visitId = await makeVisit(t, c.churchId, personId, p.serviceId, '2024-05-12', [sessionId]);
      expect((await call(t.app, 'DELETE', `/attendance/sessions/${sessionId}`, { token: edit })).statusCode).toBe(200);
    });
    expect(jobsOf(records.map((job) => job.map(brief)))).toEqual(
      jobsOf([
        [['session', 'created', 'session.created']],
        [['session', 'updated', null]],
        [
          ['session', 'destroyed', null],
          ['visitSession', 'destroyed', null],
          ['visit', 'destroyed', null],
        ],
      ]),
    );
    expect(find(records, sessionId, 'created').data).toMatchObject({ id: sessionId, groupId, serviceTimeId: p.serviceTimeId });
    expect(find(records, visitId, 'destroyed').changes).toMatchObject({ personId: { before: personId, after: null } });
  });

  it('reports label templates saved (and the default taken from another) and deleted', async () => {
    const c = makeChurch();
    const edit = c.token(['Attendance.Edit']);
    const template = { name: 'Kids', labelType: 'nametag', width: 2.5, height: 1.25, isDefault: true };
    let first = '';
    let second = '';
    const records = await reported(c.churchId, async () => {
      first = (await call(t.app, 'POST', '/attendance/labeltemplates', { token: edit, body: template })).json()[0].id;
      second = (await call(t.app, 'POST', '/attendance/labeltemplates', { token: edit, body: { ...template, name: 'Adults' } })).json()[0].id;
      await call(t.app, 'DELETE', `/attendance/labeltemplates/${first}`, { token: edit });
      // refused inside its transaction (a new template without its size): nothing reported
      expect((await call(t.app, 'POST', '/attendance/labeltemplates', { token: edit, body: [{ ...template, name: 'Ok' }, { name: 'No size', labelType: 'pickup' }] })).statusCode).toBe(400);
    });
    expect(jobsOf(records.map((job) => job.map((r) => [...brief(r), r.entityId])))).toEqual(
      jobsOf([
        [['labelTemplate', 'created', null, first]],
        [
          ['labelTemplate', 'updated', null, first],
          ['labelTemplate', 'created', null, second],
        ],
        [['labelTemplate', 'destroyed', null, first]],
      ]),
    );
    expect(find(records, first, 'updated').changes).toEqual({ isDefault: { before: true, after: false } });
  });
});

describe('check-in', () => {
  // A check-in is reported only as its events, and only those the church listens for: the audit log leaves it out.
  async function checkInTwice(listen?: string[]) {
    const c = makeChurch();
    if (listen) people.listen(c.churchId, ...listen);
    const p = await makePlaces(t, c.churchId);
    const home = randomUUID();
    const [ann, bob] = [people.add(c.churchId, home), people.add(c.churchId, home)];
    const groupId = randomUUID();
    const edit = c.token(['Attendance.Edit']);
    const item = (personId: string) => ({ personId, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId } }] });
    const post = (body: unknown, peopleIds: string[] = []) =>
      call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}${peopleIds.length ? `&peopleIds=${peopleIds.join(',')}` : ''}`, { token: edit, body });
    let first: { visits: Array<{ id: string; visitSessions: Array<{ sessionId: string }> }> } = { visits: [] };
    const records = await reported(c.churchId, async () => {
      first = (await post([item(ann), item(bob)])).json();
      // again without Bob, who is in scope: Ann's visit is kept and checked in again, Bob's removed
      await post([item(ann)], [bob]);
      // refused (a stranger): nothing written, nothing reported
      expect((await post([item(ann), item(randomUUID())])).statusCode).toBe(400);
    });
    expect((await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId))).map((v) => v.id)).toEqual([first.visits[0]!.id]);
    return { c, ann, first, records, sessionId: first.visits[0]!.visitSessions[0]!.sessionId };
  }
  const lines = (records: Record_[][]) => jobsOf(records.map((job) => job.map((r) => [...brief(r), r.entityId, (r as { logged?: boolean }).logged ?? null])));

  it('hands on each visit as attendance.recorded and each session opened as session.created, one job per submission, when the church listens for them', async () => {
    const { c, ann, first, records, sessionId } = await checkInTwice(['attendance.recorded', 'session.created']);
    const [annVisit, bobVisit] = first.visits;
    expect(lines(records)).toEqual(
      jobsOf([
        [
          ['session', 'created', 'session.created', sessionId, false],
          ['visit', 'checkedIn', 'attendance.recorded', annVisit!.id, false],
          ['visit', 'checkedIn', 'attendance.recorded', bobVisit!.id, false],
        ],
        [['visit', 'checkedIn', 'attendance.recorded', annVisit!.id, false]],
      ]),
    );
    // the webhook's payload is the visit as the check-in answered it
    const firstJob = records.find((job) => job.length === 3)!;
    expect(firstJob[1]!.data).toEqual(first.visits[0]);
    expect(firstJob[1]!).toMatchObject({ churchId: c.churchId, changes: { personId: { before: null, after: ann } } });
  });

  it('hands on only the events the church listens for, and no job when it listens for none', async () => {
    const recorded = await checkInTwice(['attendance.recorded']);
    expect(recorded.records.flat().map((r) => r.event)).toEqual(['attendance.recorded', 'attendance.recorded', 'attendance.recorded']);
    const none = await checkInTwice(['person.created']);
    expect(none.records).toEqual([]);
  });

  it('hands on every event when membership cannot say what the church listens for', async () => {
    const { records, sessionId, first } = await checkInTwice();
    expect(lines(records)).toEqual(
      jobsOf([
        [
          ['session', 'created', 'session.created', sessionId, false],
          ['visit', 'checkedIn', 'attendance.recorded', first.visits[0]!.id, false],
          ['visit', 'checkedIn', 'attendance.recorded', first.visits[1]!.id, false],
        ],
        [['visit', 'checkedIn', 'attendance.recorded', first.visits[0]!.id, false]],
      ]),
    );
  });
});

describe('check-in and its report commit together', () => {
  it('writes nothing when its report cannot be written', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const ann = people.add(c.churchId);
    const body = [{ personId: ann, visitSessions: [{ session: { serviceTimeId: p.serviceTimeId, groupId: randomUUID() } }] }];
    const enqueue = jest.spyOn(t.deps.queue, 'enqueue').mockRejectedValueOnce(new Error('the outbox is away'));
    try {
      const res = await call(t.app, 'POST', `/attendance/visits/checkin?serviceId=${p.serviceId}`, { token: c.token(['Attendance.Edit']), body });
      expect(res.statusCode).toBe(500);
      expect(enqueue).toHaveBeenCalledTimes(1);
    } finally {
      enqueue.mockRestore();
    }
    expect(await t.app.db.select().from(visits).where(eq(visits.churchId, c.churchId))).toEqual([]);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.churchId, c.churchId))).toEqual([]);
  });
});

describe('visits and visit sessions', () => {
  it('reports visits saved (a new one as attendance.recorded), folded into another, and deleted with their visit sessions', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const edit = c.token(['Attendance.Edit']);
    const [ann, bob] = [randomUUID(), randomUUID()];
    const sessionId = await makeSession(t, c.churchId, randomUUID(), p.serviceTimeId, '2024-06-02');
    const annVisit = await makeVisit(t, c.churchId, ann, p.serviceId, '2024-06-02', [sessionId]);
    const [annLink] = await t.app.db.select().from(visitSessions).where(eq(visitSessions.visitId, annVisit));
    let bobVisit = '';
    const records = await reported(c.churchId, async () => {
      bobVisit = (await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { personId: bob, serviceId: p.serviceId, visitDate: '2024-06-02' } })).json()[0].id;
      await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { id: bobVisit, visitDate: '2024-06-09' } });
      // Bob merged into Ann, who was there that day too: Bob's visit joins Ann's
      await call(t.app, 'POST', '/attendance/visits', { token: edit, body: { id: bobVisit, personId: ann, visitDate: '2024-06-02' } });
      expect((await call(t.app, 'DELETE', `/attendance/visits/${annVisit}`, { token: edit })).statusCode).toBe(200);
    });
    expect(jobsOf(records.map((job) => job.map((r) => [...brief(r), r.entityId])))).toEqual(
      jobsOf([
        [['visit', 'created', 'attendance.recorded', bobVisit]],
        [['visit', 'updated', null, bobVisit]],
        [['visit', 'destroyed', null, bobVisit]],
        [
          ['visit', 'destroyed', null, annVisit],
          ['visitSession', 'destroyed', null, annLink!.id],
        ],
      ]),
    );
    expect(find(records, bobVisit, 'updated').changes).toEqual({ visitDate: { before: '2024-06-02T00:00:00.000Z', after: '2024-06-09T00:00:00.000Z' } });
  });

  it('reports a person logged into a session as attendance.recorded, and removed from it with the visit that went', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const edit = c.token(['Attendance.Edit']);
    const personId = randomUUID();
    const groupId = randomUUID();
    const sessionId = await makeSession(t, c.churchId, groupId, p.serviceTimeId, '2024-07-07');
    const log = () => call(t.app, 'POST', '/attendance/visitsessions/log', { token: edit, body: { personId, visitSessions: [{ sessionId }] } });
    const records = await reported(c.churchId, async () => {
      await log();
      await log(); // already there: nothing changed, nothing reported
      await call(t.app, 'DELETE', `/attendance/visitsessions?personId=${personId}&sessionId=${sessionId}`, { token: edit });
      await call(t.app, 'DELETE', `/attendance/visitsessions?personId=${personId}&sessionId=${sessionId}`, { token: edit });
    });
    expect(jobsOf(records.map((job) => job.map(brief)))).toEqual(
      jobsOf([
        [
          ['visit', 'created', null],
          ['visitSession', 'created', 'attendance.recorded'],
        ],
        [
          ['visitSession', 'destroyed', null],
          ['visit', 'destroyed', null],
        ],
      ]),
    );
    const logged = records.find((job) => job[0]!.action === 'created')!;
    const recorded = logged[1]!;
    // the visit with its new visit session and that session's group, as a check-in's visit carries them
    expect(recorded.data).toMatchObject({ id: logged[0]!.entityId, personId, visitSessions: [{ id: recorded.entityId, sessionId, session: { id: sessionId, groupId, serviceTimeId: p.serviceTimeId } }] });
  });
});
