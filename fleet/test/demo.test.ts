import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFleet, type Fleet } from '../src/fleet';
import { DEMO_CHURCH, makeDemo, type DemoReport } from '../src/demo';
import { gatewayCaller } from './http';

/*
 * The demo church (`pnpm demo`, `pnpm start --demo`), small: made through the gateway, read back as the staff
 * app reads it with the demo login, and made again without adding anything.
 */
describe('the demo church', () => {
  let fleet: Fleet;
  let dataDir: string;
  let first: DemoReport;
  const jwt: Record<string, string> = {};
  const call = gatewayCaller(() => fleet.url);
  const get = async (module: string, key: string, p: string) => {
    const res = await call('GET', `/${module}${p}`, undefined, jwt[key]);
    expect(res.status).toBe(200);
    return res.body as Array<Record<string, unknown>>;
  };
  /** what the church holds, read through the API */
  const counts = async () => {
    const groups = await get('membership', 'MembershipApi', '/groups');
    const batches = await get('giving', 'GivingApi', '/donationbatches');
    return {
      people: (await get('membership', 'MembershipApi', '/people')).length,
      households: (await get('membership', 'MembershipApi', '/households')).length,
      groups: groups.length,
      ministries: groups.filter((g) => String(g.tags).includes('ministry')).length,
      teams: groups.filter((g) => String(g.tags).includes('team')).length,
      campuses: (await get('attendance', 'AttendanceApi', '/campuses')).length,
      services: (await get('attendance', 'AttendanceApi', '/services')).length,
      serviceTimes: (await get('attendance', 'AttendanceApi', '/servicetimes')).length,
      sessions: (await get('attendance', 'AttendanceApi', '/sessions')).length,
      funds: (await get('giving', 'GivingApi', '/funds')).length,
      batches: batches.length,
      donations: batches.reduce((n, b) => n + Number(b.donationCount), 0),
      pages: (await get('content', 'ContentApi', '/pages')).length,
      sermons: (await get('content', 'ContentApi', '/sermons')).length,
      playlists: (await get('content', 'ContentApi', '/playlists')).length,
      songs: (await get('content', 'ContentApi', '/songs')).length,
      planTypes: (await get('doing', 'DoingApi', '/planTypes')).length,
      plans: (await get('doing', 'DoingApi', '/plans')).length,
      tasks: (await get('doing', 'DoingApi', '/tasks')).length,
    };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'demo-church-'));
    fleet = await startFleet({ port: 0, dataDir, logLevel: 'silent' });
    first = await makeDemo({ url: fleet.url, dataDir, people: 40, weeks: 4 });
  }, 300_000);
  afterAll(async () => {
    await fleet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs the staff login in with the printed password, kept for the next run, and selects the demo church with every module', async () => {
    expect(first).toEqual(expect.objectContaining({ email: 'demo@church.test', churchName: DEMO_CHURCH, password: expect.stringMatching(/^.{8,}$/) }));
    expect(JSON.parse(readFileSync(path.join(dataDir, 'demo-login.json'), 'utf8'))).toEqual({ email: 'demo@church.test', password: first.password });
    expect((await call('POST', '/membership/users/login', { email: 'demo@church.test', password: 'not-the-password' })).status).toBe(401);
    const login = await call('POST', '/membership/users/login', { email: 'demo@church.test', password: first.password });
    expect(login.status).toBe(200);
    const churches = login.body.userChurches as Array<{ church: { id: string; name: string }; apis: Array<{ keyName: string; jwt: string; permissions: unknown[] }> }>;
    expect(churches.map((uc) => uc.church)).toEqual([expect.objectContaining({ id: first.churchId, name: DEMO_CHURCH })]);
    for (const a of churches[0]!.apis) jwt[a.keyName] = a.jwt;
    expect(Object.keys(jwt).sort()).toEqual(['AttendanceApi', 'ContentApi', 'DoingApi', 'GivingApi', 'MembershipApi', 'MessagingApi', 'ReportingApi']);
    // the church's creator administers it
    expect(churches[0]!.apis.find((a) => a.keyName === 'GivingApi')!.permissions).toEqual(expect.arrayContaining([{ contentType: 'Donations', action: 'Edit' }]));
  });

  it('holds people in households, groups with ministries and teams, a campus with a service and its times, attendance, funds with a batch a week of gifts, a site, sermons, songs, plans and tasks', async () => {
    const c = await counts();
    // 40 invented people and the staff login's own person
    expect(c.people).toBe(41);
    expect(c.households).toBeGreaterThanOrEqual(10);
    expect(c).toEqual(expect.objectContaining({ groups: 22, ministries: 3, teams: 7, campuses: 1, services: 1, serviceTimes: 2, sessions: 16, funds: 5, batches: 4, pages: 7, sermons: 4, playlists: 4, songs: 8, planTypes: 1, plans: 8 }));
    expect(c.donations).toBeGreaterThan(4);
    // B1Admin's TeamList finds a ministry's teams by their categoryName; the team keeps its ministry as parent
    const groups = await get('membership', 'MembershipApi', '/groups');
    for (const ministry of groups.filter((g) => String(g.tags).includes('ministry'))) {
      const teams = groups.filter((g) => g.categoryName === ministry.id);
      expect(teams.length).toBeGreaterThanOrEqual(2);
      expect(teams.every((t) => t.parentGroupId === ministry.id && String(t.tags).includes('team'))).toBe(true);
    }
    expect(c.tasks).toBeGreaterThan(0);
    // the attendance screens' weekly trend: people came on each of the four Sundays
    const trend = (await get('attendance', 'AttendanceApi', '/attendancerecords/trend')) as Array<{ week: string; count: number }>;
    expect(trend.length).toBe(4);
    expect(trend.every((w) => w.count > 0)).toBe(true);
    // every gift is allocated to funds in full (amounts as the API answers them, compared in cents)
    const batches = await get('giving', 'GivingApi', '/donationbatches');
    const donations = await get('giving', 'GivingApi', `/donations?batchId=${batches[0]!.id}`);
    expect(donations.length).toBe(Number(batches[0]!.donationCount));
    const cents = (v: unknown) => Math.round(Number(v) * 100);
    expect(donations.reduce((n, d) => n + cents(d.amount), 0)).toBe(cents(batches[0]!.totalAmount));
    // the home page is there with its content, publicly
    const home = await call('GET', `/content/pages/${first.churchId}/tree?url=/`);
    expect(home.status).toBe(200);
    expect(JSON.stringify(home.body)).toContain('Welcome to Hillside');
  });

  it('adds nothing on a second run: it finds the church with the kept password and leaves every area as it was', async () => {
    const before = await counts();
    const second = await makeDemo({ url: fleet.url, dataDir, people: 40, weeks: 4 });
    expect(second).toEqual({ ...first, added: {} });
    expect(await counts()).toEqual(before);
    expect(existsSync(path.join(dataDir, 'demo-login.json'))).toBe(true);
  });

  it('refuses another password for the demo login with a sentence naming DEMO_PASSWORD, and changes nothing', async () => {
    const before = await counts();
    await expect(makeDemo({ url: fleet.url, dataDir, password: 'not-the-demo-password' })).rejects.toThrow(/demo@church\.test has an account with another password: run again with DEMO_PASSWORD/);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'demo-login.json'), 'utf8')).password).toBe(first.password);
    expect(await counts()).toEqual(before);
  });
});
