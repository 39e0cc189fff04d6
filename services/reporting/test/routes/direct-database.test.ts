import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { call } from '@church/common/testing';
import { openDatabase } from '@church/common';
import { reports } from '../../src/reports';
import { insert, makeChurch, probeReport, SOURCE_MIGRATIONS, useReporting } from '../setup';

// With `MEMBERSHIP_DATABASE_URL` set, reporting reads membership over its own pool in read-only transactions.
// This needs a PostgreSQL server to name by URL, so it runs with TEST_DATABASE_URL only (PGlite has no URL).
const adminUrl = process.env.TEST_DATABASE_URL;
const suite = adminUrl ? describe : describe.skip;
if (!adminUrl) console.info('direct-database.test.ts skipped: set TEST_DATABASE_URL to read a module database by URL');

suite('reading a module database by URL', () => {
  const name = `test_reporting_src_${process.pid}_${randomUUID().slice(0, 8)}`;
  const extra = [probeReport('insertPerson', `insert into people (id, church_id, display_name) values (gen_random_uuid(), $1::uuid, 'Mallory')`), probeReport('slow', 'select pg_sleep(2), $1::uuid', { timeoutMs: 100 })];
  /** membership's database on the server, named by URL: made (and migrated) before the app, dropped after it */
  async function membershipByUrl() {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    await admin.end();
    const url = new URL(adminUrl!);
    url.pathname = `/${name}`;
    const membership = await openDatabase({ url: url.toString(), poolSize: 2 });
    await membership.migrate(SOURCE_MIGRATIONS.membership);
    return {
      membership,
      config: { MEMBERSHIP_DATABASE_URL: url.toString() },
      close: async () => {
        await membership.close();
        const dropper = new Client({ connectionString: adminUrl });
        await dropper.connect();
        await dropper.query(`drop database if exists "${name}" with (force)`);
        await dropper.end();
      },
    };
  }
  // no source module is read through an owner here: the fake owners hold no database
  const t = useReporting([], { reports: [...reports, ...extra], fakes: membershipByUrl });

  it('runs the report on its own connection, never through the owner', async () => {
    const c = makeChurch();
    const ann = await insert(t.membership, 'people', { churchId: c.churchId, firstName: 'Ann', lastName: 'Adams', displayName: 'Ann Adams', birthDate: '1990-03-05' });
    await insert(t.membership, 'people', { churchId: makeChurch().churchId, displayName: 'Zed Zane', birthDate: '1990-03-06' });
    const res = await call(t.app, 'GET', '/reporting/reports/birthdays/run?month=3', { token: c.token(['People.View']) });
    expect(res.statusCode).toBe(200);
    expect(res.json().table).toEqual([{ personId: ann, displayName: 'Ann Adams', firstName: 'Ann', lastName: 'Adams', birthDate: '1990-03-05', birthDay: '03/05', day: 5 }]);
    expect(t.owners.calls).toEqual([]);
  });

  it('refuses a write (read-only transaction) and a statement past its time limit, naming which', async () => {
    const c = makeChurch();
    const before = await t.membership.rows<{ n: number }>('select count(*)::int as n from people', []);
    const write = await call(t.app, 'GET', '/reporting/reports/insertPerson/run', { token: c.token(['People.View']) });
    expect(write.statusCode).toBe(502);
    expect(write.json().errors[0]).toBe('Report query "main" on membership tried to write through a read-only connection');
    expect(await t.membership.rows('select count(*)::int as n from people', [])).toEqual(before);
    const slow = await call(t.app, 'GET', '/reporting/reports/slow/run', { token: c.token(['People.View']) });
    expect(slow.statusCode).toBe(502);
    expect(slow.json().errors[0]).toBe('Report query "main" on membership took longer than its time limit');
    // the connection went back to the pool in a usable state
    expect((await call(t.app, 'GET', '/reporting/reports/birthdays/run?month=3', { token: c.token(['People.View']) })).statusCode).toBe(200);
  });

  it('still reads the modules without a URL through their owners', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'GET', '/reporting/reports/attendanceTrend/run', { token: c.token(['Attendance.View']) });
    // the fake owners hold no attendance database here: the call reached them and failed as a downstream failure
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toBe('Report query "main" on attendance failed');
  });
});
