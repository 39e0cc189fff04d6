import { call } from '@church/common/testing';
import type { ReportDefinition } from '../../src/domain/definition';
import { reports } from '../../src/reports';
import { birthdays } from '../../src/reports/birthdays';
import { count, insert, makeChurch, probeReport, useReporting } from '../setup';

const writers = [
  probeReport('insertPerson', `insert into people (id, church_id, display_name) values (gen_random_uuid(), $1::uuid, 'Mallory') returning id`),
  probeReport('deleteInCte', `with gone as (delete from people where church_id = $1::uuid returning id) select count(*)::int as n from gone`),
  probeReport('updatePeople', `update people set display_name = 'Mallory' where church_id = $1::uuid`),
];
const slow = probeReport('slow', `select pg_sleep(2) as slept, $1::uuid as church`, { timeoutMs: 100 });

const broken: ReportDefinition = {
  ...probeReport('brokenChain', 'unused $1'),
  parameters: [
    { keyName: 'churchId', source: 'token', claim: 'churchId' },
    { keyName: 'ids', source: 'result', query: 'first', column: 'id' },
  ],
  queries: [
    { keyName: 'first', module: 'membership', params: ['churchId'], sql: 'select (1 / 0) as id, $1::uuid as church' },
    { keyName: 'second', module: 'membership', params: ['churchId', 'ids'], sql: 'select $1::uuid as church, $2::jsonb as ids' },
  ],
  table: { from: 'second' },
};

const h = useReporting(['membership'], { reports: [...reports, ...writers, slow, broken], config: { REPORT_TIMEOUT_MS: '4321' } });

const get = (url: string, token?: string) => call(h.app, 'GET', url, { token });

describe('GET /reporting/reports/:keyName', () => {
  it('answers the definition without its SQL to any signed-in user', async () => {
    const c = makeChurch();
    const res = await get('/reporting/reports/groupAttendance', c.token());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ keyName: 'groupAttendance', displayName: 'Group Attendance', permissions: [{ requireOne: [{ api: 'AttendanceApi', contentType: 'Attendance', action: 'View' }] }] });
    expect(body.parameters.map((p: { keyName: string; origin: string }) => `${p.origin}:${p.keyName}`)).toEqual([
      'token:churchId',
      'query:campusId',
      'query:serviceId',
      'query:week',
      'result:groupIds',
      'result:personIds',
    ]);
    expect(body.queries).toEqual([
      { keyName: 'main', module: 'attendance', params: ['churchId', 'campusId', 'serviceId', 'week'] },
      { keyName: 'groups', module: 'membership', params: ['churchId', 'groupIds'] },
      { keyName: 'people', module: 'membership', params: ['churchId', 'personIds'] },
    ]);
    expect(res.body).not.toMatch(/select|sql/i);
    expect(body.outputs[0]).toEqual({ outputType: 'tree', groupings: [1, 1], groupBy: ['serviceTimeName', 'groupName'], columns: expect.any(Array) });
  });

  it('finds key names case-insensitively, answers 404 for an unknown one, 401 without a token', async () => {
    const c = makeChurch();
    expect((await get('/reporting/reports/BIRTHDAYS', c.token())).json().keyName).toBe('birthdays');
    const missing = await get('/reporting/reports/nope', c.token('all'));
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ errors: ['Report not found'] });
    expect((await get('/reporting/reports/nope/run', c.token('all'))).statusCode).toBe(404);
    expect((await get('/reporting/reports/birthdays')).statusCode).toBe(401);
    expect((await get('/reporting/reports/birthdays/run')).statusCode).toBe(401);
  });
});

describe('GET /reporting/reports/:keyName/run', () => {
  it('binds churchId from the token, passes the configured time limit, and ignores undeclared parameters', async () => {
    const c = makeChurch();
    await insert(h.sources.membership!, 'people', { churchId: c.churchId, displayName: 'Ann Adams', birthDate: '1990-03-05' });
    const before = h.owners.calls.length;
    const res = await get(`/reporting/reports/birthdays/run?month=3&churchId=${makeChurch().churchId}&dropTable=people`, c.token(['People.View']));
    expect(res.statusCode).toBe(200);
    expect(res.json().table.map((r: { displayName: string }) => r.displayName)).toEqual(['Ann Adams']);
    const sent = h.owners.calls.slice(before);
    expect(sent).toEqual([{ module: 'membership', sql: birthdays.queries[0]!.sql, params: [c.churchId, 3], timeoutMs: 4321 }]);
  });

  it('refuses a definition that tries to write: the read-only transaction stops it and nothing changes', async () => {
    const c = makeChurch();
    await insert(h.sources.membership!, 'people', { churchId: c.churchId, displayName: 'Ann Adams' });
    const people = await count(h.sources.membership!, 'people');
    for (const writer of writers) {
      const before = h.owners.calls.length;
      const res = await get(`/reporting/reports/${writer.keyName}/run`, c.token(['People.View']));
      expect(res.statusCode).toBe(502);
      expect(res.json().errors[0]).toBe('Report query "main" on membership failed');
      const [sent] = h.owners.calls.slice(before);
      expect(sent!.error).toEqual({ code: '25006', message: expect.stringMatching(/read-only transaction/) });
    }
    expect(await count(h.sources.membership!, 'people')).toBe(people);
    const names = await h.sources.membership!.rows<{ display_name: string }>('select display_name from people where church_id = $1', [c.churchId]);
    expect(names).toEqual([{ display_name: 'Ann Adams' }]);
  });

  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
  onPostgres('stops a statement past its time limit (PostgreSQL only: PGlite has no statement timer)', async () => {
    const c = makeChurch();
    const started = Date.now();
    const res = await get('/reporting/reports/slow/run', c.token(['People.View']));
    expect(res.statusCode).toBe(502);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(h.owners.calls.at(-1)).toMatchObject({ timeoutMs: 100, error: { code: '57014' } });
  });

  it('names the query that failed and never runs the queries that needed its rows', async () => {
    const c = makeChurch();
    const before = h.owners.calls.length;
    const res = await get('/reporting/reports/brokenChain/run', c.token(['People.View']));
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ errors: ['Report query "first" on membership failed'] });
    expect(h.owners.calls.slice(before).map((q) => q.error?.code)).toEqual(['22012']);
  });

  it('checks the permission groups before the parameters', async () => {
    const c = makeChurch();
    const res = await get('/reporting/reports/birthdays/run?month=99', c.token(['Attendance.View']));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ errors: ['Missing permission: People.View or People.View Members'] });
    expect((await get('/reporting/reports/birthdays/run?month=99', c.token(['People.View']))).statusCode).toBe(400);
    // server admins pass every permission check
    expect((await get('/reporting/reports/birthdays/run?month=3', c.token([], { serverAdmin: true }))).statusCode).toBe(200);
  });
});
