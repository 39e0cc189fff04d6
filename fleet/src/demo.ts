import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/*
 * A demo church for trying the platform with ChurchApps' apps: a staff login, a few hundred people in households,
 * groups, ministries and teams, a year of attendance and giving, a website, sermons and playlists, plans, songs and
 * tasks. Everything goes through the gateway with the calls the apps send (register, login, churches/add, then
 * the modules' batch saves, a few hundred rows a request). Every area is filled only when it is empty, so a second
 * run finds the church and adds nothing; an area an interrupted run left half-made is left as it is.
 * The data is invented: a seeded generator draws the same church on every machine.
 */

export interface DemoOptions {
  /** the gateway, e.g. http://localhost:8080 */
  url: string;
  /** the fleet's data folder: where the dev mailbox keeps the welcome message, and the generated password is kept */
  dataDir?: string;
  email?: string;
  password?: string;
  /** how many people (default 300) */
  people?: number;
  /** weeks of attendance and giving history (default 52) */
  weeks?: number;
  log?: (line: string) => void;
}

export interface DemoReport {
  churchId: string;
  churchName: string;
  email: string;
  password: string;
  /** what this run added, per area (empty when everything was there) */
  added: Record<string, number>;
}

export const DEMO_CHURCH = 'Hillside Community Church (demo)';
const DEMO_EMAIL = 'demo@church.test';
const BATCH = 300;

type Row = Record<string, unknown> & { id: string };
type Api = {
  get: <T = Row[]>(p: string) => Promise<T>;
  post: <T = Row[]>(p: string, body: unknown) => Promise<T>;
};

/** Makes the demo church, or fills what an earlier run left empty. */
export async function makeDemo(options: DemoOptions): Promise<DemoReport> {
  const log = options.log ?? (() => undefined);
  const base = options.url.replace(/\/$/, '');
  const email = (options.email ?? DEMO_EMAIL).toLowerCase();
  const kept = options.password ? undefined : keptPassword(options.dataDir, email);
  const password = options.password ?? kept ?? `demo-${randomBytes(6).toString('base64url')}`;
  const people = options.people ?? 300;
  const weeks = options.weeks ?? 52;
  const call = async <T>(method: string, p: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const must = async <T>(method: string, p: string, body?: unknown, token?: string): Promise<T> => {
    const res = await call<T>(method, p, body, token);
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return res.body;
  };

  // The staff login: sign in, or register and set the password from the welcome message (the dev mailbox).
  type Login = { user: { jwt: string }; userChurches: Array<{ church: { id: string; name: string }; apis: Array<{ keyName: string; jwt: string }> }> };
  let login = await call<Login>('POST', '/membership/users/login', { email, password });
  if (login.status !== 200) {
    const registered = await call('POST', '/membership/users/register', { email, firstName: 'Dana', lastName: 'Demo', appName: 'B1Admin' });
    if (registered.status !== 200) throw new Error(`${email} has an account with another password: run again with DEMO_PASSWORD set to it`);
    const authGuid = await welcomeAuth(options.dataDir, email);
    await must('POST', '/membership/users/setPasswordGuid', { authGuid, newPassword: password, appName: 'B1Admin' });
    login = await call<Login>('POST', '/membership/users/login', { email, password });
    if (login.status !== 200) throw new Error(`logging in as ${email} answered ${login.status}`);
    if (!options.password) keepPassword(options.dataDir, email, password);
    log(`registered ${email}`);
  }
  let church = login.body.userChurches.find((uc) => uc.church.name === DEMO_CHURCH)?.church;
  if (!church) {
    church = await must<{ id: string; name: string }>(
      'POST',
      '/membership/churches/add',
      { name: DEMO_CHURCH, address1: '400 Hillside Ave', city: 'Springfield', state: 'IL', zip: '62704', country: 'US' },
      login.body.user.jwt,
    );
    log(`created ${DEMO_CHURCH}`);
  }
  // A token per module, as the apps keep them (UserHelper.selectChurch).
  const chosen = (await must<Login>('POST', '/membership/users/login', { jwt: login.body.user.jwt })).userChurches.find((uc) => uc.church.id === church.id);
  if (!chosen) throw new Error('the demo church is not among the login’s churches');
  const jwt = Object.fromEntries(chosen.apis.map((a) => [a.keyName, a.jwt]));
  const api = (module: string, key: string): Api => ({
    get: (p) => must('GET', `/${module}${p}`, undefined, jwt[key]),
    post: (p, body) => must('POST', `/${module}${p}`, body, jwt[key]),
  });
  const m = {
    membership: api('membership', 'MembershipApi'),
    attendance: api('attendance', 'AttendanceApi'),
    giving: api('giving', 'GivingApi'),
    content: api('content', 'ContentApi'),
    doing: api('doing', 'DoingApi'),
  };
  /** saves rows in batches of a few hundred, answering the saved rows in input order */
  const save = async (a: Api, p: string, rows: unknown[]): Promise<Row[]> => {
    const saved: Row[] = [];
    for (let i = 0; i < rows.length; i += BATCH) saved.push(...(await a.post(p, rows.slice(i, i + BATCH))));
    return saved;
  };
  const added: Record<string, number> = {};
  const note = (area: string, n: number) => {
    added[area] = (added[area] ?? 0) + n;
    log(`  ${area}: ${n}`);
  };
  const rnd = random(44);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

  // People in households (the staff login's own person is already there).
  let everyone = await m.membership.get('/people');
  if (everyone.length <= 1) {
    const households: Array<{ name: string; members: Record<string, unknown>[] }> = [];
    let count = 0;
    for (let h = 0; count < people; h++) {
      const last = LAST[(h * 7 + Math.floor(rnd() * 3)) % LAST.length]!;
      const size = Math.min(people - count, 1 + Math.floor(rnd() * 5));
      const street = `${100 + h * 3} ${pick(STREETS)} St`;
      const members: Record<string, unknown>[] = [];
      const adultYear = 1950 + Math.floor(rnd() * 50);
      const couple = size > 1 && rnd() < 0.8;
      for (let k = 0; k < size; k++) {
        const role = k === 0 ? 'Head' : k === 1 && couple ? 'Spouse' : 'Child';
        const male = k === 0 ? rnd() < 0.5 : role === 'Spouse' ? !(members[0]!.gender === 'Male') : rnd() < 0.5;
        const first = male ? pick(MALE) : pick(FEMALE);
        const year = role === 'Child' ? Math.min(Math.max(adultYear + 24, 2004) + k * 2, 2024) : adultYear + Math.floor(rnd() * 4);
        const status = role === 'Child' ? 'Member' : pick(['Member', 'Member', 'Member', 'Regular Attendee', 'Regular Attendee', 'Visitor', 'Guest']);
        members.push({
          name: { first, last },
          gender: male ? 'Male' : 'Female',
          birthDate: `${year}-${pad(1 + Math.floor(rnd() * 12))}-${pad(1 + Math.floor(rnd() * 28))}`,
          membershipStatus: status,
          householdRole: role,
          maritalStatus: role !== 'Child' && couple ? 'Married' : 'Single',
          contactInfo: {
            email: role === 'Child' ? undefined : `${first}.${last}${h}@example.test`.toLowerCase(),
            mobilePhone: role === 'Child' ? undefined : `217-555-${String(1000 + ((h * 37 + k * 11) % 9000)).padStart(4, '0')}`,
            address1: street,
            city: 'Springfield',
            state: 'IL',
            zip: '62704',
          },
        });
      }
      households.push({ name: last, members });
      count += size;
    }
    const savedHouseholds = await save(m.membership, '/households', households.map((h) => ({ name: h.name })));
    const rows = households.flatMap((h, i) => h.members.map((p) => ({ ...p, householdId: savedHouseholds[i]!.id })));
    note('households', savedHouseholds.length);
    note('people', (await save(m.membership, '/people', rows)).length);
    everyone = await m.membership.get('/people');
  }
  const members = everyone.filter((p) => (p.name as { last?: string } | undefined)?.last !== 'Demo');
  const adults = members.filter((p) => p.householdRole !== 'Child');

  // Groups, ministries with their teams, and their members.
  let groups = await m.membership.get('/groups');
  if (!groups.length) {
    const standard = await save(m.membership, '/groups', GROUPS.map(([name, categoryName, trackAttendance, meetingTime]) => ({ name, categoryName, trackAttendance, meetingTime, tags: 'standard' })));
    // as B1Admin's serving screens make them: a team names its ministry's id as its category (TeamList reads it)
    const ministries = await save(m.membership, '/groups', MINISTRIES.map(([name]) => ({ name, categoryName: 'Ministry', tags: 'ministry' })));
    const teams = await save(
      m.membership,
      '/groups',
      MINISTRIES.flatMap(([, names], i) => names.map((name) => ({ name, categoryName: ministries[i]!.id, tags: 'team' }))),
    );
    note('groups', standard.length + ministries.length + teams.length);
    const memberships: Array<{ groupId: string; personId: string; leader: boolean }> = [];
    const join = (group: Row, from: Row[], n: number) => {
      const chosen = new Set<string>();
      for (let k = 0; k < n * 3 && chosen.size < Math.min(n, from.length); k++) chosen.add(pick(from).id);
      [...chosen].forEach((personId, k) => memberships.push({ groupId: group.id, personId, leader: k === 0 }));
    };
    const children = members.filter((p) => p.householdRole === 'Child');
    for (const group of standard) {
      if (group.name === 'Sunday Worship') join(group, members, members.length);
      else if (group.name === 'Kids Church' || group.name === 'Youth Group') join(group, children, Math.ceil(children.length / 2));
      else join(group, adults, 6 + Math.floor(rnd() * 10));
    }
    for (const group of [...ministries, ...teams]) join(group, adults, 4 + Math.floor(rnd() * 6));
    note('group members', (await save(m.membership, '/groupmembers', memberships)).length);
    groups = await m.membership.get('/groups');
  }
  const byName = (name: string) => groups.find((g) => g.name === name);

  // A campus, its Sunday service with two times, and the attendance groups linked to them.
  let campuses = await m.attendance.get('/campuses');
  if (!campuses.length) {
    campuses = await m.attendance.post('/campuses', [{ name: 'Main Campus', address1: '400 Hillside Ave', city: 'Springfield', state: 'IL', zip: '62704', timezone: 'America/Chicago' }]);
    const [service] = await m.attendance.post('/services', [{ campusId: campuses[0]!.id, name: 'Sunday Morning' }]);
    const times = await m.attendance.post('/servicetimes', [
      { serviceId: service!.id, name: '9:00 AM' },
      { serviceId: service!.id, name: '11:00 AM' },
    ]);
    const links = ATTENDANCE_GROUPS.map(([name, t]) => ({ groupId: byName(name)!.id, serviceTimeId: times[t]!.id }));
    await m.attendance.post('/groupservicetimes', links);
    note('campuses, services and times', 1 + 1 + times.length);
  }

  // Weekly sessions of the attendance groups and the visits of who came.
  if (!(await m.attendance.get('/sessions')).length) {
    const [service] = await m.attendance.get('/services');
    const times = await m.attendance.get('/servicetimes');
    const memberIds = new Map<string, string[]>();
    for (const [name] of ATTENDANCE_GROUPS) memberIds.set(name, (await m.membership.get(`/groupmembers?groupId=${byName(name)!.id}`)).map((r) => String(r.personId)));
    const sunday = lastSunday();
    const sessions: Array<{ groupId: string; serviceTimeId: string; sessionDate: string; key: string }> = [];
    for (let w = weeks - 1; w >= 0; w--) {
      const day = addDays(sunday, -7 * w);
      for (const [name, t] of ATTENDANCE_GROUPS) {
        const hour = t === 0 ? 15 : 17; // 9 and 11 in Springfield (UTC-6)
        sessions.push({ groupId: byName(name)!.id, serviceTimeId: times.find((x) => x.name === (t === 0 ? '9:00 AM' : '11:00 AM'))!.id, sessionDate: `${day}T${hour}:00:00.000Z`, key: `${name}|${day}` });
      }
    }
    const savedSessions = await save(m.attendance, '/sessions', sessions.map(({ key: _key, ...s }) => s));
    // One visit per person and Sunday; each visit attends the sessions of the person's groups that day.
    const visits = new Map<string, { personId: string; visitDate: string; sessionIds: string[] }>();
    sessions.forEach((s, i) => {
      const [name, day] = s.key.split('|') as [string, string];
      const rate = name === 'Sunday Worship' ? 0.55 : 0.6;
      for (const personId of memberIds.get(name) ?? []) {
        if (rnd() >= rate) continue;
        const key = `${personId}|${day}`;
        const visit = visits.get(key) ?? { personId, visitDate: day, sessionIds: [] };
        visit.sessionIds.push(savedSessions[i]!.id);
        visits.set(key, visit);
      }
    });
    const list = [...visits.values()];
    const savedVisits = await save(
      m.attendance,
      '/visits',
      list.map((v) => ({ personId: v.personId, serviceId: service!.id, visitDate: v.visitDate, checkinTime: `${v.visitDate}T14:45:00.000Z` })),
    );
    const visitSessions = list.flatMap((v, i) => v.sessionIds.map((sessionId) => ({ visitId: savedVisits[i]!.id, sessionId })));
    await save(m.attendance, '/visitsessions', visitSessions);
    note('sessions', savedSessions.length);
    note('visits', savedVisits.length);
  }

  // Funds, and a batch a week of gifts (amounts in whole cents, written as decimal text).
  let funds = await m.giving.get('/funds');
  if (!funds.length) {
    funds = await m.giving.post('/funds', FUNDS.map(([name, taxDeductible]) => ({ name, taxDeductible })));
    note('funds', funds.length);
  }
  if (!(await m.giving.get('/donationbatches')).length) {
    const givers = adults.filter((p) => p.householdRole === 'Head');
    const sunday = lastSunday();
    const batches = await save(
      m.giving,
      '/donationbatches',
      Array.from({ length: weeks }, (_, w) => ({ name: `Sunday offering ${addDays(sunday, -7 * (weeks - 1 - w))}`, batchDate: addDays(sunday, -7 * (weeks - 1 - w)) })),
    );
    const gifts: Array<{ donation: Record<string, unknown>; funds: Array<{ fundIndex: number; cents: number }> }> = [];
    batches.forEach((batch, w) => {
      const day = addDays(sunday, -7 * (weeks - 1 - w));
      for (const giver of givers) {
        if (rnd() >= 0.45) continue;
        const cents = (1 + Math.floor(rnd() * rnd() * 40)) * 500;
        const split = rnd() < 0.2 ? 1 + Math.floor(rnd() * (FUNDS.length - 1)) : 0;
        const method = pick(['Check', 'Check', 'Cash', 'Card', 'ACH']);
        const second = split ? 500 * Math.floor(cents / 1000) : 0;
        const parts = [{ fundIndex: 0, cents: cents - second }, { fundIndex: split, cents: second }].filter((p) => p.cents > 0);
        gifts.push({
          donation: { batchId: batch.id, personId: giver.id, amount: money(cents), donationDate: day, method, methodDetails: method === 'Check' ? String(1000 + Math.floor(rnd() * 8000)) : '' },
          funds: parts,
        });
      }
      // the loose cash of the Sunday, to the general fund
      const loose = 2000 + Math.floor(rnd() * 200) * 100;
      gifts.push({ donation: { batchId: batch.id, personId: '', amount: money(loose), donationDate: day, method: 'Cash' }, funds: [{ fundIndex: 0, cents: loose }] });
    });
    const donations = await save(m.giving, '/donations', gifts.map((g) => g.donation));
    await save(
      m.giving,
      '/funddonations',
      gifts.flatMap((g, i) => g.funds.map((f) => ({ donationId: donations[i]!.id, fundId: funds[f.fundIndex]!.id, amount: money(f.cents) }))),
    );
    note('donation batches', batches.length);
    note('donations', donations.length);
  }

  // The website: pages with sections and elements, and the navigation.
  if (!(await m.content.get('/pages')).length) {
    for (const page of PAGES) {
      await m.content.post('/pages/importTree', {
        url: page.url,
        title: page.title,
        layout: 'headerFooter',
        sections: page.sections.map((s, i) => ({
          zone: 'main',
          background: i % 2 ? '#F5F5F5' : '#FFFFFF',
          textColor: 'dark',
          sort: i,
          elements: [
            { elementType: 'text', sort: 0, answers: { text: `<h2>${s[0]}</h2><p>${s[1]}</p>`, textAlignment: 'left' } },
          ],
        })),
      });
    }
    await m.content.post('/links', PAGES.map((p, i) => ({ category: 'website', linkType: 'url', text: p.title, url: p.url, sort: i })));
    note('pages', PAGES.length);
  }

  // Sermon series (playlists) and a sermon a week.
  if (!(await m.content.get('/sermons')).length) {
    const sunday = lastSunday();
    let playlists = await m.content.get('/playlists');
    if (!playlists.length) {
      playlists = await save(m.content, '/playlists', SERIES.map((title, i) => ({ title, description: `A sermon series: ${title}.`, publishDate: addDays(sunday, -7 * 13 * (SERIES.length - 1 - i)), isPublic: true })));
      note('playlists', playlists.length);
    }
    const count = Math.min(weeks, 52);
    const sermons = Array.from({ length: count }, (_, w) => {
      const series = Math.min(SERIES.length - 1, Math.floor(((count - 1 - w) * SERIES.length) / Math.max(count, 1)));
      return {
        playlistId: playlists[SERIES.length - 1 - series]?.id ?? playlists[0]!.id,
        title: `${pick(SERMON_TITLES)} (week ${count - w})`,
        description: 'Sunday message from Hillside Community Church.',
        publishDate: addDays(sunday, -7 * w),
        videoType: 'youtube',
        videoData: `demo${String(w).padStart(7, '0')}`,
        videoUrl: `https://www.youtube.com/embed/demo${String(w).padStart(7, '0')}`,
        duration: 1800 + Math.floor(rnd() * 900),
      };
    });
    note('sermons', (await save(m.content, '/sermons', sermons)).length);
  }

  // Songs with an arrangement each.
  let songs = await m.content.get('/songs');
  if (!songs.length) {
    songs = await m.content.post('/songs', SONGS.map(([name]) => ({ name })));
    await m.content.post('/arrangements', SONGS.map(([name, lyrics], i) => ({ songId: songs[i]!.id, name: 'Default', lyrics: `[Verse 1]\n${lyrics}\n\n[Chorus]\n${name}` })));
    note('songs', songs.length);
  }

  // Worship plans: four past Sundays and four ahead, positions from the teams, some people scheduled, an order of service.
  if (!(await m.doing.get('/planTypes')).length) {
    const ministry = byName(MINISTRIES[0]![0])!;
    const [planType] = await m.doing.post('/planTypes', [{ ministryId: ministry.id, name: 'Sunday Service' }]);
    const sunday = lastSunday();
    const plans = await m.doing.post(
      '/plans',
      Array.from({ length: 8 }, (_, k) => ({ ministryId: ministry.id, planTypeId: planType!.id, name: `Sunday ${addDays(sunday, 7 * (k - 3))}`, serviceDate: addDays(sunday, 7 * (k - 3)) })),
    );
    const teams = MINISTRIES[0]![1].map((name) => byName(name)!);
    const teamMembers = new Map<string, string[]>();
    for (const team of teams) teamMembers.set(team.id, (await m.membership.get(`/groupmembers?groupId=${team.id}`)).map((r) => String(r.personId)));
    const positions = await save(
      m.doing,
      '/positions',
      plans.flatMap((plan) => POSITIONS.map(([name, t]) => ({ planId: plan.id, categoryName: teams[t]!.name, name, count: 1, groupId: teams[t]!.id }))),
    );
    const assignments = positions.flatMap((pos, k) => {
      const people = teamMembers.get(String(pos.groupId)) ?? [];
      if (!people.length || rnd() < 0.15) return [];
      // Unconfirmed: only the person asked accepts or declines
      return [{ positionId: pos.id, personId: people[k % people.length]! }];
    });
    await save(m.doing, '/assignments', assignments);
    for (const plan of plans) {
      const [header] = await m.doing.post('/planItems', [{ planId: plan.id, sort: 1, itemType: 'header', label: 'Worship' }]);
      await m.doing.post('/planItems', ORDER.map(([label, itemType, seconds], i) => ({ planId: plan.id, parentId: header!.id, sort: i + 1, itemType, label, seconds })));
    }
    note('plans', plans.length);
    note('positions', positions.length);
    note('assignments', assignments.length);
  }

  // A few open tasks for the staff login.
  if (!(await m.doing.get('/tasks')).length) {
    const me = everyone.find((p) => (p.name as { last?: string } | undefined)?.last === 'Demo');
    const visitors = members.filter((p) => p.membershipStatus === 'Visitor').slice(0, 6);
    const tasks = visitors.map((v) => ({
      title: `Follow up with ${(v.name as { display?: string }).display ?? 'a visitor'}`,
      note: 'First visit this month: call or send a welcome card.',
      status: 'Open',
      associatedWithType: 'person',
      associatedWithId: v.id,
      associatedWithLabel: (v.name as { display?: string }).display,
      assignedToType: 'person',
      assignedToId: me?.id,
      assignedToLabel: 'Dana Demo',
      createdByType: 'person',
      createdById: me?.id,
      createdByLabel: 'Dana Demo',
    }));
    if (tasks.length) note('tasks', (await m.doing.post('/tasks', tasks)).length);
  }

  return { churchId: church.id, churchName: church.name, email, password, added };
}

/** The password generated when the demo login was registered, kept beside the fleet's data for later runs. */
function keptPassword(dataDir: string | undefined, email: string): string | undefined {
  const file = dataDir ? path.join(dataDir, 'demo-login.json') : undefined;
  if (!file || !existsSync(file)) return undefined;
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { email?: string; password?: string };
  return stored.email === email ? stored.password : undefined;
}

function keepPassword(dataDir: string | undefined, email: string, password: string): void {
  if (dataDir && existsSync(dataDir)) writeFileSync(path.join(dataDir, 'demo-login.json'), JSON.stringify({ email, password }, null, 2), { mode: 0o600 });
}

/** The welcome message's link guid, from the dev mailbox (the fleet without SendGrid). */
async function welcomeAuth(dataDir: string | undefined, email: string): Promise<string> {
  const dir = dataDir ? path.join(dataDir, 'mail') : undefined;
  for (let i = 0; dir && i < 100; i++) {
    const files = existsSync(dir) ? readdirSync(dir).sort() : [];
    for (const f of files.reverse()) {
      try {
        const mail = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { to?: string; html?: string };
        const auth = mail.to === email ? /[?&]auth=([^&"]+)/.exec(mail.html ?? '')?.[1] : undefined;
        if (auth) return decodeURIComponent(auth.replace(/&amp;/g, '&'));
      } catch {
        // being written
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no welcome message to ${email} in the dev mailbox${dir ? ` (${dir})` : ''}: set the password from the message, then run again with DEMO_PASSWORD`);
}

/** Whole cents as the decimal text the API takes (never through floating point). */
function money(cents: number): string {
  return `${Math.floor(cents / 100)}.${pad(cents % 100)}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The last Sunday on or before today, YYYY-MM-DD (UTC). */
function lastSunday(): string {
  const now = new Date();
  return addDays(now.toISOString().slice(0, 10), -now.getUTCDay());
}

function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** mulberry32: the same invented church on every run */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MALE = ['James', 'Noah', 'Elijah', 'Caleb', 'Owen', 'Isaac', 'Micah', 'Samuel', 'Henry', 'Levi', 'Jonah', 'Miles', 'Ezra', 'Luke', 'Marcus', 'Andre', 'Mateo', 'Felix', 'Gavin', 'Tobias'];
const FEMALE = ['Grace', 'Hannah', 'Abigail', 'Naomi', 'Lydia', 'Ruth', 'Clara', 'Esther', 'Maya', 'Nora', 'Lucy', 'Ivy', 'Priya', 'Sofia', 'Leah', 'Joy', 'Hazel', 'Elena', 'Mara', 'Willa'];
const LAST = ['Ashford', 'Bramwell', 'Castellano', 'Delacroix', 'Ellsworth', 'Fairbanks', 'Galloway', 'Hartwell', 'Iverson', 'Jablonski', 'Kensington', 'Lindqvist', 'Marchetti', 'Nakamura', 'Okafor', 'Pemberton', 'Quintero', 'Rosenthal', 'Sorensen', 'Thornbury', 'Underhill', 'Valdivia', 'Whitcombe', 'Yamashita', 'Zelinski', 'Abernathy', 'Birchwood', 'Coldwell', 'Dunmore', 'Everly'];
const STREETS = ['Oak', 'Maple', 'Cedar', 'Willow', 'Birch', 'Hillside', 'Meadow', 'Orchard', 'River', 'Chestnut'];
/** name, category, tracks attendance, meeting time */
const GROUPS: Array<[string, string, boolean, string]> = [
  ['Sunday Worship', 'Worship', true, 'Sundays 9:00 and 11:00'],
  ['Kids Church', 'Children', true, 'Sundays 9:00'],
  ['Youth Group', 'Students', true, 'Sundays 11:00'],
  ['Adult Bible Class', 'Sunday School', true, 'Sundays 9:00'],
  ['Tuesday Women’s Study', 'Small Groups', false, 'Tuesdays 10:00'],
  ['Men’s Breakfast', 'Small Groups', false, 'Saturdays 7:30'],
  ['Young Adults', 'Small Groups', false, 'Thursdays 19:00'],
  ['North Side Home Group', 'Small Groups', false, 'Wednesdays 19:00'],
  ['South Side Home Group', 'Small Groups', false, 'Wednesdays 19:00'],
  ['Grief Support', 'Care', false, 'Mondays 18:30'],
  ['Prayer Team', 'Care', false, 'Sundays 8:15'],
  ['Newcomers Class', 'Sunday School', false, 'First Sunday 12:15'],
];
/** the groups that track attendance, and their service time (0 = 9:00, 1 = 11:00) */
const ATTENDANCE_GROUPS: Array<[string, number]> = [
  ['Sunday Worship', 0],
  ['Kids Church', 0],
  ['Youth Group', 1],
  ['Adult Bible Class', 0],
];
const MINISTRIES: Array<[string, string[]]> = [
  ['Worship Ministry', ['Band', 'Vocals', 'Production']],
  ['Hospitality Ministry', ['Greeters', 'Coffee']],
  ['Children’s Ministry', ['Nursery', 'Kids Teachers']],
];
/** position, team (index into the worship ministry's teams) */
const POSITIONS: Array<[string, number]> = [
  ['Worship Leader', 1],
  ['Acoustic Guitar', 0],
  ['Keys', 0],
  ['Drums', 0],
  ['Bass', 0],
  ['Vocals', 1],
  ['Sound', 2],
  ['Slides', 2],
];
const ORDER: Array<[string, string, number]> = [
  ['Welcome and announcements', 'item', 300],
  ['Morning Light Rising', 'song', 270],
  ['Harbor of Grace', 'song', 300],
  ['Scripture reading', 'item', 180],
  ['Sermon', 'item', 1800],
  ['Steadfast Love Remains', 'song', 280],
  ['Blessing', 'item', 120],
];
/** name, tax-deductible */
const FUNDS: Array<[string, boolean]> = [
  ['General Fund', true],
  ['Missions', true],
  ['Building Fund', true],
  ['Benevolence', true],
  ['Youth Retreat', false],
];
const SERIES = ['Foundations', 'Letters to the Churches', 'Psalms for the Summer', 'Advent: Waiting Well'];
const SERMON_TITLES = ['Rooted and Built Up', 'A Table for Everyone', 'When the Storm Comes', 'The Quiet Faithfulness', 'Grace for Today', 'Living Hope', 'Neighbors and Strangers', 'The Long Obedience', 'Bread for the Journey', 'Light in Dark Places'];
const SONGS: Array<[string, string]> = [
  ['Morning Light Rising', 'Morning light is rising over every hill\nWe lift our hearts and voices, we are waiting still'],
  ['Harbor of Grace', 'When the waves are high and the night is long\nYou are the harbor, you are my song'],
  ['Steadfast Love Remains', 'Seasons change and rivers run\nYour steadfast love remains'],
  ['All Who Are Weary', 'All who are weary, come and rest\nLay down the burden, be at peace'],
  ['Open the Gates', 'Open the gates and let us in\nSing to the one who makes all things new'],
  ['Lantern Song', 'Carry the lantern into the street\nLight for the lost and the weak'],
  ['Great Is the Harvest', 'Great is the harvest, the fields are wide\nSend us out with you beside'],
  ['Evening Hymn', 'As the day fades into night\nKeep us in your gentle light'],
];
const PAGES: Array<{ url: string; title: string; sections: Array<[string, string]> }> = [
  { url: '/', title: 'Home', sections: [['Welcome to Hillside', 'A church for the whole neighborhood. Join us Sundays at 9:00 and 11:00.'], ['This Sunday', 'Coffee is on from 8:30; kids check in at the west entrance.'], ['Get connected', 'Find a small group, serve on a team, or join us for the Newcomers Class.']] },
  { url: '/about', title: 'About Us', sections: [['Our story', 'Hillside began as a handful of families meeting in a school gym.'], ['What we believe', 'We follow Jesus together, love our neighbors and welcome everyone.']] },
  { url: '/visit', title: 'Plan a Visit', sections: [['Service times', 'Sundays at 9:00 and 11:00 AM, 400 Hillside Ave.'], ['For kids', 'Nursery through fifth grade during both services.']] },
  { url: '/groups', title: 'Groups', sections: [['Small groups', 'Groups meet across town during the week. Find one near you.']] },
  { url: '/sermons', title: 'Sermons', sections: [['Watch and listen', 'Catch up on recent messages and series.']] },
  { url: '/give', title: 'Give', sections: [['Generosity', 'Give online, by check or in the offering on Sundays.']] },
  { url: '/contact', title: 'Contact', sections: [['Get in touch', 'Call 217-555-0100 or write to hello@example.test.']] },
];

if (require.main === module) {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  makeDemo({
    url: process.env.GATEWAY_URL ?? 'http://localhost:8080',
    dataDir,
    email: process.env.DEMO_EMAIL,
    password: process.env.DEMO_PASSWORD,
    log: (line) => console.log(line),
  })
    .then((r) => {
      const what = Object.keys(r.added).length ? 'made' : 'was already there';
      console.log(`The demo church ${what}: ${r.churchName}. Sign in as ${r.email} with password ${r.password}`);
    })
    .catch((err) => {
      const refused = (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      console.error(refused ? `No fleet answers at ${process.env.GATEWAY_URL ?? 'http://localhost:8080'}: start it (pnpm start) or set GATEWAY_URL` : err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
