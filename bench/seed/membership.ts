import { hashPassword, PERMISSIONS } from '@church/auth';
import { SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { literal, step, textArray, withoutIndexes, type Exec, type StepTiming } from './exec';

const MALE = ['James', 'John', 'Robert', 'Michael', 'William', 'David', 'Richard', 'Joseph', 'Thomas', 'Charles', 'Daniel', 'Matthew', 'Anthony', 'Mark', 'Paul', 'Steven', 'Andrew', 'Joshua', 'Kevin', 'Brian', 'George', 'Timothy', 'Ronald', 'Jason', 'Ryan'];
const FEMALE = ['Mary', 'Patricia', 'Jennifer', 'Linda', 'Elizabeth', 'Barbara', 'Susan', 'Jessica', 'Sarah', 'Karen', 'Lisa', 'Nancy', 'Betty', 'Sandra', 'Margaret', 'Ashley', 'Emily', 'Donna', 'Michelle', 'Carol', 'Amanda', 'Melissa', 'Deborah', 'Rebecca', 'Laura'];
// 100 common surnames: exactly one starts with "Smi", so the search term matches about 1% of a church.
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts', 'Gomez', 'Phillips', 'Evans', 'Turner', 'Diaz', 'Parker', 'Cruz', 'Edwards', 'Collins', 'Reyes', 'Stewart', 'Morris', 'Morales', 'Murphy', 'Cook', 'Rogers', 'Gutierrez', 'Ortiz', 'Morgan', 'Cooper', 'Peterson', 'Bailey', 'Reed', 'Kelly', 'Howard', 'Ramos', 'Kim', 'Cox', 'Ward', 'Richardson', 'Watson', 'Brooks', 'Chavez', 'Wood', 'James', 'Bennett', 'Gray', 'Mendoza', 'Ruiz', 'Hughes', 'Price', 'Alvarez', 'Castillo', 'Sanders', 'Patel', 'Myers', 'Long', 'Ross', 'Foster', 'Jimenez'];
const STREETS = ['Oak', 'Maple', 'Cedar', 'Pine', 'Elm', 'Washington', 'Lake', 'Hill', 'Park', 'Main'];
const CATEGORIES = ['Small Group', 'Sunday School', 'Ministry', 'Youth', 'Volunteers', 'Bible Study'];

const big = SHAPE.big;
const small = SHAPE.small;
/** `case when c = 0 then <big> else <small> end` */
const per = (bigValue: number | string, smallValue: number | string) => `(case when c = 0 then ${bigValue} else ${smallValue} end)`;
/** churches × their people, `pk` a number unique per person for the pseudo-random draws */
const PEOPLE = `generate_series(0, ${SHAPE.churches - 1}) c cross join lateral generate_series(0, ${per(big.people - 1, small.people - 1)}) i`;

/**
 * Seeds the membership database: 100 churches (one with 10,000 people), households, groups and members,
 * and login users of the big church who are Domain Admins with every permission.
 */
export async function seedMembership(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const lastName = `(${textArray(LAST)})[1 + floor(pg_temp.rnd(c * 100000 + h, 11) * ${LAST.length})::int]`;

  await step(db, timings, 'churches', `
    insert into churches (id, name, sub_domain, address1, city, state, zip, country)
    select pg_temp.uid('church:' || c), case when c = 0 then 'Bench Grace Church' else 'Bench Church ' || c end,
           'bench' || c, (100 + c) || ' Church St', 'Springfield', 'IL', '62701', 'US'
      from generate_series(0, ${SHAPE.churches - 1}) c`);

  await step(db, timings, 'households', `
    insert into households (id, church_id, name)
    select pg_temp.uid('household:' || c || ':' || h), pg_temp.uid('church:' || c), ${lastName}
      from generate_series(0, ${SHAPE.churches - 1}) c cross join lateral generate_series(0, ${per(big.households - 1, small.households - 1)}) h`);

  await withoutIndexes(db, timings, ['people'], () =>
    step(db, timings, 'people', `
      insert into people (id, church_id, user_id, display_name, first_name, last_name, birth_date, gender, membership_status,
                          mobile_phone, email, address1, city, state, zip, household_id, household_role, campus_id)
      select pg_temp.uid('person:' || c || ':' || i), pg_temp.uid('church:' || c),
             case when c = 0 and i < ${SHAPE.users} then pg_temp.uid('user:' || i) end,
             first || ' ' || last, first, last, date '1945-01-01' + floor(pg_temp.rnd(pk, 14) * 27000)::int, gender,
             case when r < 0.5 then 'Member' when r < 0.7 then 'Regular Attendee' when r < 0.85 then 'Visitor' when r < 0.87 then 'Staff' else 'Guest' end,
             '555-' || lpad((pk % 10000000)::text, 7, '0'), lower(first || '.' || last || '.' || i || '@example.test'),
             (100 + h) || ' ' || (${textArray(STREETS)})[1 + h % ${STREETS.length}] || ' St', 'Springfield', 'IL', '627' || lpad((h % 100)::text, 2, '0'),
             pg_temp.uid('household:' || c || ':' || h),
             case when i < hh then 'Head' when i < 2 * hh then 'Spouse' else 'Child' end,
             pg_temp.uid('campus:' || c || ':' || (h % ${per(big.campuses, small.campuses)}))
        from (
          select c, i, h, hh, pk, r, gender, last,
                 case when gender = 'Male' then (${textArray(MALE)})[1 + floor(pg_temp.rnd(pk, 13) * ${MALE.length})::int]
                      else (${textArray(FEMALE)})[1 + floor(pg_temp.rnd(pk, 13) * ${FEMALE.length})::int] end as first
            from (
              select c, i, i % hh as h, hh, c::bigint * 100000 + i as pk, pg_temp.rnd(c::bigint * 100000 + i, 15) as r,
                     case when pg_temp.rnd(c::bigint * 100000 + i, 12) < 0.5 then 'Male' else 'Female' end as gender
                from (select c, i, ${per(big.households, small.households)} as hh from ${PEOPLE}) base
            ) drawn
            cross join lateral (select ${lastName} as last) ln
        ) p`),
  );

  await step(db, timings, 'groups', `
    insert into groups (id, church_id, category_name, name, slug, track_attendance, tags, meeting_time, meeting_location)
    select pg_temp.uid('group:' || c || ':' || g), pg_temp.uid('church:' || c), category, category || ' ' || lpad((g + 1)::text, 3, '0'),
           lower(replace(category, ' ', '-')) || '-' || (g + 1), g < ${per(big.linkedGroups, small.linkedGroups)}, '{standard}', 'Sunday 9:00', 'Room ' || (g % 20 + 1)
      from generate_series(0, ${SHAPE.churches - 1}) c cross join lateral generate_series(0, ${per(big.groups - 1, small.groups - 1)}) g
      cross join lateral (select (${textArray(CATEGORIES)})[1 + g % ${CATEGORIES.length}] as category) k`);

  // Group 0 of the big church has the download scenario's 200 members; the others about 4.5 members each.
  await step(db, timings, 'group members', `
    insert into group_members (id, church_id, group_id, person_id, leader)
    select pg_temp.uid('gm:' || c || ':' || g || ':' || p), pg_temp.uid('church:' || c), pg_temp.uid('group:' || c || ':' || g),
           pg_temp.uid('person:' || c || ':' || p), bool_or(j = 0)
      from (
        select 0 as c, 0 as g, i as j, i as p from generate_series(0, ${big.downloadGroupMembers - 1}) i
        union all
        select c, g, j, case when c = 0 then ${big.downloadGroupMembers} + floor(pg_temp.rnd(key, 32) * ${big.people - big.downloadGroupMembers})::int
                             else floor(pg_temp.rnd(key, 32) * ${small.people})::int end
          from generate_series(0, ${SHAPE.churches - 1}) c
          cross join lateral generate_series(case when c = 0 then 1 else 0 end, ${per(big.groups - 1, small.groups - 1)}) g
          cross join lateral generate_series(0, 1 + floor(pg_temp.rnd(c * 1000 + g, 31) * 6)::int) j
          cross join lateral (select (c::bigint * 1000 + g) * 16 + j as key) k
      ) m
     group by c, g, p`);

  const hash = await hashPassword(SHAPE.password);
  await step(db, timings, 'users', `
    insert into users (id, email, password_hash, first_name, last_name)
    select pg_temp.uid('user:' || k), 'bench' || k || '@bench.test', $1, 'Bench', 'User ' || k from generate_series(0, ${SHAPE.users - 1}) k`, [hash]);
  await step(db, timings, 'user churches', `
    insert into user_churches (id, user_id, church_id, person_id)
    select pg_temp.uid('uc:' || k), pg_temp.uid('user:' || k), pg_temp.uid('church:0'), pg_temp.uid('person:0:' || k)
      from generate_series(0, ${SHAPE.users - 1}) k`);
  await step(db, timings, 'roles', `
    insert into roles (id, church_id, name) select pg_temp.uid('role:' || c), pg_temp.uid('church:' || c), 'Domain Admins'
      from generate_series(0, ${SHAPE.churches - 1}) c`);
  const permissions = PERMISSIONS.map((p, n) => `(${n}, ${literal(p.apiName)}, ${literal(p.contentType)}, ${literal(p.action)})`).join(',');
  await step(db, timings, 'role permissions', `
    insert into role_permissions (id, church_id, role_id, api_name, content_type, action)
    select pg_temp.uid('rp:' || c || ':' || n), pg_temp.uid('church:' || c), pg_temp.uid('role:' || c), api, content_type, action
      from generate_series(0, ${SHAPE.churches - 1}) c cross join (values ${permissions}) as p(n, api, content_type, action)`);
  await step(db, timings, 'role members', `
    insert into role_members (id, church_id, role_id, user_id)
    select pg_temp.uid('rm:' || k), pg_temp.uid('church:0'), pg_temp.uid('role:0'), pg_temp.uid('user:' || k) from generate_series(0, ${SHAPE.users - 1}) k`);
  return timings;
}
