import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { yearsBetween } from '../../src/domain/people/advanced-match';
import { ConditionList, parseCondition } from '../../src/lib/advanced-search';
import { advancedSearch } from '../../src/repos/advanced-search';
import { people } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';

// advancedSearch answers from the church's kept person records in memory; these tests hold it to the answers
// of the SQL path (`advancedSearch` in repos/advanced-search.ts) over varied people and every kind of condition.

const t = useMembership();

/** A deterministic pseudo-random sequence, so that a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** Conditions as the route checks them, for the SQL path. */
const parsed = (conditions: unknown) => ConditionList.parse(conditions).map((c, i) => parseCondition(c, i));

const day = (d: Date) => d.toISOString().slice(0, 10);
function daysFromToday(days: number, yearsBack = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear() - yearsBack, now.getUTCMonth(), now.getUTCDate() + days));
}

describe('POST /membership/people/advancedSearch over the kept records', () => {
  let church: Awaited<ReturnType<typeof makeChurch>>;
  const campus = [randomUUID(), randomUUID()];
  let groupId = '';

  beforeAll(async () => {
    church = await makeChurch(t);
    const next = random(42);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    groupId = await addGroup(t, church.churchId, 'Choir');
    for (let n = 0; n < 160; n++) {
      const yearsBack = Math.floor(next() * 90);
      const birth = pick([null, daysFromToday(0, yearsBack), daysFromToday(1, yearsBack), daysFromToday(-1, yearsBack), daysFromToday(Math.floor(next() * 365), yearsBack), new Date('2000-02-29'), daysFromToday(30)]);
      const person = await addPerson(t, church.churchId, {
        firstName: pick(['Ann', 'ann', 'Bob', 'BOB', 'Émile', 'Zoë', 'Li', 'Jo_', 'Jo%']),
        lastName: pick(['Smith', 'smith', 'Jones', 'de la Cruz', 'O’Neil', 'Ng']),
        middleName: pick([null, '', 'Lee']),
        prefix: pick([null, 'Dr', 'Mrs']),
        gender: pick([null, 'Male', 'male', 'Female', 'Unspecified']),
        maritalStatus: pick([null, 'Married', 'Single', 'Widowed']),
        membershipStatus: pick(['Member', 'Staff', 'Visitor', 'Guest', 'Regular Attendee']),
        email: pick([null, `p${n}@Example.org`, `P${n}@example.COM`]),
        birthDate: birth,
        anniversary: pick([null, new Date('1999-06-15'), new Date('2010-12-31'), daysFromToday(0, 10)]),
        mobilePhone: pick([null, '+1 (555) 010-0000', '555.010.1234', '44 20 7946 0000']),
        homePhone: pick([null, '(555) 777-0000']),
        city: pick([null, 'Springfield', 'SPRINGFIELD', 'Shelbyville']),
        campusId: pick([null, ...campus]),
        optedOut: next() < 0.2,
        createdAt: new Date(Date.UTC(2024, Math.floor(next() * 12), 1 + Math.floor(next() * 28), Math.floor(next() * 24))),
        school: pick([null, 'North High']),
        grade: pick([null, '9', '10']),
      });
      if (next() < 0.3) await addToGroup(t, church.churchId, groupId, person.id);
    }
  });

  const cases: unknown[][] = [
    // the bench's query: men over 40
    [{ field: 'gender', operator: 'equals', value: 'male' }, { field: 'age', operator: 'greaterThan', value: 40 }],
    [{ field: 'age', operator: 'between', value: [18, 40] }],
    [{ field: 'age', operator: 'equals', value: 0 }],
    [{ field: 'age', operator: 'lessThan', value: 0 }],
    [{ field: 'age', operator: 'notEquals', value: 30 }],
    [{ field: 'age', operator: 'in', value: [1, 2, 3, 40, 41] }],
    [{ field: 'birthMonth', operator: 'equals', value: 'February' }],
    [{ field: 'birthDay', operator: 'equals', value: 29 }],
    [{ field: 'birthYear', operator: 'lessThan', value: 1970 }],
    [{ field: 'anniversaryMonth', operator: 'in', value: '6,12' }],
    [{ field: 'birthDate', operator: 'between', value: ['1950-01-01', '1990-12-31'] }],
    [{ field: 'birthDate', operator: 'notEquals', value: '2000-02-29' }],
    [{ field: 'anniversary', operator: 'greaterThan', value: '2005-01-01' }],
    [{ field: 'createdAt', operator: 'lessThan', value: '2024-06-15' }],
    [{ field: 'dateAdded', operator: 'equals', value: '2024-03-05' }],
    [{ field: 'firstName', operator: 'equals', value: ' ANN ' }],
    [{ field: 'firstName', operator: 'startsWith', value: 'jo_' }],
    [{ field: 'firstName', operator: 'contains', value: '%' }],
    [{ field: 'lastName', operator: 'contains', value: 'MIT' }],
    [{ field: 'lastName', operator: 'in', value: ['smith', 'NG'] }],
    [{ field: 'middleName', operator: 'notEquals', value: 'lee' }],
    [{ field: 'email', operator: 'contains', value: 'example.org' }],
    [{ field: 'membershipStatus', operator: 'in', value: 'member, staff' }],
    [{ field: 'city', operator: 'notEqual', value: 'springfield' }],
    [{ field: 'phone', operator: 'contains', value: '010' }],
    [{ field: 'phoneNumber', operator: 'equals', value: '5557770000' }],
    [{ field: 'phone', operator: 'startsWith', value: '1555' }],
    [{ field: 'campusId', operator: 'equals', value: campus[0] }],
    [{ field: 'campusId', operator: 'notEquals', value: campus[0]!.toUpperCase() }],
    [{ field: 'campusId', operator: 'in', value: campus }],
    [{ field: 'optedOut', operator: 'equals', value: 'true' }],
    [{ field: 'optedOut', operator: 'notEquals', value: true }],
    [{ field: 'grade', operator: 'in', value: [9, 10] }],
    [{ field: 'school', operator: 'equals', value: 'north high' }, { field: 'gender', operator: 'notEquals', value: 'male' }],
    // the operators and fields of B1Admin's advanced search (src/people/components/AdvancedPeopleSearch.tsx)
    [{ field: 'age', operator: 'greaterThanEqual', value: 40 }, { field: 'age', operator: 'lessThanEqual', value: 60 }],
    [{ field: 'birthDate', operator: 'greaterThanEqual', value: '2000-02-29' }],
    [{ field: 'createdAt', operator: 'lessThanEqual', value: '2024-06-15' }],
    [{ field: 'lastName', operator: 'endsWith', value: 'TH' }],
    [{ field: 'lastName', operator: 'notIn', value: ['smith', 'ng'] }],
    [{ field: 'middleName', operator: 'notIn', value: 'lee' }],
    [{ field: 'phone', operator: 'endsWith', value: '0000' }],
    [{ field: 'prefix', operator: 'equals', value: 'dr' }],
    [{ field: 'address', operator: 'contains', value: 'main' }],
    [{ field: 'yearsMarried', operator: 'greaterThanEqual', value: 10 }],
    [{ field: 'yearsMarried', operator: 'notIn', value: [10] }],
    [{ field: 'birthMonth', operator: 'notIn', value: 'February,March' }],
    [{ field: 'campusId', operator: 'notIn', value: campus }],
    [],
  ];

  it.each(cases.map((c) => [JSON.stringify(c), c]))('answers as the SQL path: %s', async (_name, conditions) => {
    for (const scope of [{ membersOnly: false }, { membersOnly: true }]) {
      const token = scope.membersOnly ? church.token([], { membershipStatus: 'Member' }) : church.token(['People.View']);
      const res = await call(t.app, 'POST', '/membership/people/advancedSearch', { token, body: conditions });
      expect(res.statusCode).toBe(200);
      const sqlIds = (await advancedSearch(t.app.db, church.churchId, parsed(conditions), scope)).map((p) => p.id);
      expect((res.json() as Array<{ id: string }>).map((p) => p.id)).toEqual(sqlIds);
    }
  });

  it('still answers group conditions (through PostgreSQL), and mixes them with the others', async () => {
    const token = church.token(['People.View']);
    for (const conditions of [
      [{ field: 'groupId', operator: 'equals', value: groupId }],
      [{ field: 'groupName', operator: 'contains', value: 'hoi' }, { field: 'gender', operator: 'equals', value: 'female' }],
      [{ field: 'groupId', operator: 'notEquals', value: groupId }, { field: 'age', operator: 'greaterThan', value: 40 }],
      // B1Admin's "group member" condition
      [{ field: 'groupMember', operator: 'in', value: [groupId] }],
      [{ field: 'groupMember', operator: 'notIn', value: [groupId] }],
    ]) {
      const res = await call(t.app, 'POST', '/membership/people/advancedSearch', { token, body: conditions });
      const sqlIds = (await advancedSearch(t.app.db, church.churchId, parsed(conditions), {})).map((p) => p.id);
      expect(sqlIds.length).toBeGreaterThan(0);
      expect((res.json() as Array<{ id: string }>).map((p) => p.id)).toEqual(sqlIds);
    }
  });

  it('sees a change at once (the kept records follow the church’s data version)', async () => {
    const token = church.token(['People.View']);
    const body = [{ field: 'city', operator: 'equals', value: 'Capital City' }];
    expect((await call(t.app, 'POST', '/membership/people/advancedSearch', { token, body })).json()).toEqual([]);
    const [someone] = await t.app.db.select().from(people).where(eq(people.churchId, church.churchId)).limit(1);
    expect((await call(t.app, 'POST', '/membership/people', { token: church.token(['People.Edit']), body: { id: someone!.id, city: 'Capital City' } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/membership/people/advancedSearch', { token, body })).json().map((p: { id: string }) => p.id)).toEqual([someone!.id]);
  });

  it('counts whole years as PostgreSQL age() does', () => {
    expect(yearsBetween(20250228, 20000229)).toBe(24);
    expect(yearsBetween(20250301, 20000229)).toBe(25);
    expect(yearsBetween(20250101, 20260601)).toBe(-1);
    expect(yearsBetween(20250601, 20250601)).toBe(0);
    expect(day(new Date('2000-02-29'))).toBe('2000-02-29');
  });
});
