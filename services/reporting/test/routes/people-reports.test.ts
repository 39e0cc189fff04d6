import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { insert, makeChurch, useReporting } from '../setup';

const h = useReporting(['membership', 'doing']);

/** A church's people (birthdays, statuses, one removed) and its March 2024 service plans with volunteers. */
async function seed() {
  const c = makeChurch();
  const m = h.sources.membership!;
  const d = h.sources.doing!;
  const churchId = c.churchId;
  const person = (first: string, last: string, birthDate: string | null, membershipStatus: string, removed = false) =>
    insert(m, 'people', { churchId, firstName: first, lastName: last, displayName: `${first} ${last}`, birthDate, membershipStatus, removed });
  const ann = await person('Ann', 'Adams', '1990-03-05', 'Member');
  const bob = await person('Bob', 'Brown', '2015-03-20', 'Regular Attendee');
  const cat = await person('Cat', 'Cole', '1950-07-01', 'Member');
  await person('Dan', 'Dean', null, 'Visitor');
  await person('Eve', 'Evans', '2010-03-05', 'Member', true);
  const fay = await person('Fay', 'Fox', '2008-03-01', 'Staff');
  await person('Gus', 'Green', '1985-12-12', 'Member');
  const other = makeChurch();
  await insert(m, 'people', { churchId: other.churchId, firstName: 'Zed', lastName: 'Zane', displayName: 'Zed Zane', birthDate: '1990-03-02', membershipStatus: 'Member' });

  const [worship, welcome] = [randomUUID(), randomUUID()];
  const plan = (name: string, serviceDate: string, ministryId: string) => insert(d, 'plans', { churchId, name, serviceDate, ministryId });
  const march10 = await plan('Sunday AM', '2024-03-10', worship);
  const march17 = await plan('Sunday AM', '2024-03-17', welcome);
  const april7 = await plan('Sunday AM', '2024-04-07', worship);
  const assign = async (planId: string, categoryName: string, name: string, personId: string, status: string) => {
    const positionId = await insert(d, 'positions', { churchId, planId, categoryName, name });
    await insert(d, 'assignments', { churchId, planId, positionId, personId, status });
  };
  await assign(march10, 'Band', 'Keys', bob, 'Unconfirmed');
  await assign(march10, 'Greeters', 'Door', cat, 'Declined');
  await assign(march10, 'Band', 'Drums', ann, 'Accepted');
  await assign(march17, 'Band', 'Drums', ann, 'Unconfirmed');
  await assign(april7, 'Band', 'Drums', bob, 'Unconfirmed');
  return { c, other, people: { ann, bob, cat, fay }, ministries: { worship, welcome }, plans: { march10, march17 } };
}

let s: Awaited<ReturnType<typeof seed>>;
beforeAll(async () => {
  s = await seed();
});

const run = (key: string, query: Record<string, string>, token: string) => call(h.app, 'GET', `/reporting/reports/${key}/run?${new URLSearchParams(query)}`, { token });

describe('GET /reporting/reports/birthdays/run', () => {
  it('lists the month’s birthdays by day, without removed people or other churches', async () => {
    const res = await run('birthdays', { month: '3' }, s.c.token(['People.View Members']));
    expect(res.statusCode).toBe(200);
    expect(res.json().table).toEqual([
      { personId: s.people.fay, displayName: 'Fay Fox', firstName: 'Fay', lastName: 'Fox', birthDate: '2008-03-01', birthDay: '03/01', day: 1 },
      { personId: s.people.ann, displayName: 'Ann Adams', firstName: 'Ann', lastName: 'Adams', birthDate: '1990-03-05', birthDay: '03/05', day: 5 },
      { personId: s.people.bob, displayName: 'Bob Brown', firstName: 'Bob', lastName: 'Brown', birthDate: '2015-03-20', birthDay: '03/20', day: 20 },
    ]);
  });

  it('defaults to this month and checks the month', async () => {
    const res = await run('birthdays', {}, s.c.token(['People.View']));
    expect(res.json().parameters).toEqual({ month: new Date().getUTCMonth() + 1 });
    const bad = await run('birthdays', { month: '13' }, s.c.token(['People.View']));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'month', location: 'query' });
    expect((await run('birthdays', { month: '3' }, s.c.token(['Attendance.View']))).statusCode).toBe(401);
  });
});

describe('GET /reporting/reports/peopleByStatusAndAge/run', () => {
  it('counts people per membership status and age group as of a day', async () => {
    const res = await run('peopleByStatusAndAge', { asOf: '2024-03-10' }, s.c.token(['People.View']));
    expect(res.statusCode).toBe(200);
    expect(res.json().table).toEqual([
      { membershipStatus: 'Member', ageGroup: '30-49', people: 2 },
      { membershipStatus: 'Member', ageGroup: '65+', people: 1 },
      { membershipStatus: 'Regular Attendee', ageGroup: '0-12', people: 1 },
      { membershipStatus: 'Staff', ageGroup: '13-17', people: 1 },
      { membershipStatus: 'Visitor', ageGroup: 'Unknown', people: 1 },
    ]);
    const tree = res.json().outputs.find((o: { outputType: string }) => o.outputType === 'tree').nodes;
    expect(tree.map((n: { value: string; rows: unknown[] }) => [n.value, n.rows.length])).toEqual([
      ['Member', 2],
      ['Regular Attendee', 1],
      ['Staff', 1],
      ['Visitor', 1],
    ]);
  });

  it('reckons ages on the day given: Bob turns 9 on 20 March 2024', async () => {
    const res = await run('peopleByStatusAndAge', { asOf: '2024-03-20' }, s.c.token(['People.View']));
    expect(res.json().table).toContainEqual({ membershipStatus: 'Regular Attendee', ageGroup: '0-12', people: 1 });
    const before = await run('peopleByStatusAndAge', { asOf: '1980-01-01' }, s.c.token(['People.View']));
    expect(before.json().table).toEqual([
      { membershipStatus: 'Member', ageGroup: '18-29', people: 1 },
      { membershipStatus: 'Member', ageGroup: 'Unknown', people: 2 },
      { membershipStatus: 'Regular Attendee', ageGroup: 'Unknown', people: 1 },
      { membershipStatus: 'Staff', ageGroup: 'Unknown', people: 1 },
      { membershipStatus: 'Visitor', ageGroup: 'Unknown', people: 1 },
    ]);
    expect((await run('peopleByStatusAndAge', {}, s.c.token(['People.View Members']))).statusCode).toBe(401);
  });
});

describe('GET /reporting/reports/volunteerSchedule/run', () => {
  it('lists the assignments of the plans in the range with the volunteers’ names', async () => {
    const res = await run('volunteerSchedule', { startDate: '2024-03-01', endDate: '2024-03-31' }, s.c.token(['Plans.Edit']));
    expect(res.statusCode).toBe(200);
    const row = (planId: string, serviceDate: string, team: string, position: string, personId: string, displayName: string, status: string) => ({
      planId,
      serviceDate,
      planName: 'Sunday AM',
      team,
      position,
      personId,
      displayName,
      status,
    });
    expect(res.json().table).toEqual([
      row(s.plans.march10, '2024-03-10', 'Band', 'Drums', s.people.ann, 'Ann Adams', 'Accepted'),
      row(s.plans.march10, '2024-03-10', 'Band', 'Keys', s.people.bob, 'Bob Brown', 'Unconfirmed'),
      row(s.plans.march10, '2024-03-10', 'Greeters', 'Door', s.people.cat, 'Cat Cole', 'Declined'),
      row(s.plans.march17, '2024-03-17', 'Band', 'Drums', s.people.ann, 'Ann Adams', 'Unconfirmed'),
    ]);
    const tree = res.json().outputs[1].nodes;
    expect(tree.map((n: { value: string }) => n.value)).toEqual(['2024-03-10', '2024-03-17']);
    expect(tree[0].children[0].children.map((n: { value: string }) => n.value)).toEqual(['Drums', 'Keys', 'Door']);
  });

  it('narrows to a ministry, and another church sees none of it', async () => {
    const welcome = await run('volunteerSchedule', { startDate: '2024-03-01', endDate: '2024-04-30', ministryId: s.ministries.welcome }, s.c.token(['People.View']));
    expect(welcome.json().table.map((r: { serviceDate: string; displayName: string }) => [r.serviceDate, r.displayName])).toEqual([['2024-03-17', 'Ann Adams']]);
    const foreign = await run('volunteerSchedule', { startDate: '2024-03-01', endDate: '2024-04-30', churchId: s.c.churchId }, s.other.token('all'));
    expect(foreign.json().table).toEqual([]);
    expect((await run('volunteerSchedule', {}, s.c.token(['Attendance.View']))).statusCode).toBe(401);
  });
});
