import { fixtures, historyStart, SHAPE, summaryYear } from './lib/fixtures';
import type { LoadRequest } from './lib/load';

export interface Target {
  text: string;
  kind: 'pgRatio' | 'rps' | 'p99';
  value: number;
  /** p99 targets: strictly below (`<`) or at most (`≤`) */
  strict?: boolean;
  /** rps targets that also bound the p99 (ms, at most) */
  p99Max?: number;
}

export interface Scenario {
  name: string;
  module: 'membership' | 'attendance' | 'giving' | 'content' | 'doing' | 'reporting' | 'messaging';
  what: string;
  request(token: string): LoadRequest;
  target?: Target;
  /** explain the SQL of one request of this scenario after the run */
  explain?: boolean;
}

const people = Array.from({ length: SHAPE.big.people }, (_, i) => fixtures.personId(i));
const halfCeiling = (what: string): Target => ({ text: `${what} ≥ 0.5× fastify+pg`, kind: 'pgRatio', value: 0.5 });

/** Ten people per check-in, a different ten each request (people outside the 200-member download group). */
const CHECKIN_BATCHES = Math.floor((SHAPE.big.people - SHAPE.big.downloadGroupMembers - 10) / 10);
function checkinBatch(n: number): { path: string; body: string } {
  const first = SHAPE.big.downloadGroupMembers + n * 10;
  const ids = people.slice(first, first + 10);
  const { service, serviceTime, group } = fixtures.checkin;
  const session = { serviceTimeId: fixtures.serviceTimeId(serviceTime), groupId: fixtures.groupId(group) };
  return {
    path: `/attendance/visits/checkin?serviceId=${fixtures.serviceId(service)}&peopleIds=${ids.join(',')}`,
    body: JSON.stringify(ids.map((personId) => ({ personId, visitSessions: [{ session }] }))),
  };
}

/** Autofill of plan k: each of its 40 positions with the 30 people of its team (team j % 10) as candidates. */
function autofill(k: number): { path: string; body: string } {
  const d = SHAPE.doing;
  const perTeam = d.candidates / d.teams;
  const team = (t: number) => people.slice(d.firstCandidate + t * perTeam, d.firstCandidate + (t + 1) * perTeam);
  const teams = Array.from({ length: d.positionsPerPlan }, (_, j) => ({ positionId: fixtures.positionId(k, j), personIds: team(j % d.teams) }));
  return { path: `/doing/plans/autofill/${fixtures.autofillPlanId(k)}`, body: JSON.stringify({ teams }) };
}

/** Login: real users with real passwords (argon2id), rotating over the seeded bench users. */
export const login: Scenario = {
  name: 'login',
  module: 'membership',
  what: 'POST /membership/users/login (email + password, argon2id verify), 20 users in turn',
  request: () => {
    const body = (n: number) => JSON.stringify({ email: fixtures.userEmail(n % SHAPE.users), password: SHAPE.password });
    return { method: 'POST', path: '/membership/users/login', body: body(0), variants: { count: SHAPE.users, of: (n) => ({ body: body(n) }) } };
  },
};

export const SCENARIOS: Scenario[] = [
  login,
  {
    name: 'churches',
    module: 'membership',
    what: 'GET /membership/churches: the authenticated read of the current user',
    request: (token) => ({ method: 'GET', path: '/membership/churches', token }),
    target: halfCeiling('authenticated read'),
  },
  {
    name: 'people-list',
    module: 'membership',
    what: `GET /membership/people: all ${SHAPE.big.people.toLocaleString('en-US')} people of the big church`,
    request: (token) => ({ method: 'GET', path: '/membership/people', token }),
    target: { text: 'whole list ≥ 100 req/s', kind: 'rps', value: 100 },
  },
  {
    name: 'people-get',
    module: 'membership',
    what: 'GET /membership/people/:id, a different person each request',
    request: (token) => ({ method: 'GET', path: `/membership/people/${people[0]}`, token, variants: { count: people.length, of: (n) => ({ path: `/membership/people/${people[n]}` }) } }),
    target: halfCeiling('people/:id'),
  },
  {
    name: 'people-search',
    module: 'membership',
    what: `GET /membership/people/search?term=${SHAPE.searchTerm} (last-name prefix, ~1% of the church)`,
    request: (token) => ({ method: 'GET', path: `/membership/people/search?term=${SHAPE.searchTerm}`, token }),
    target: { text: 'search p99 < 20 ms', kind: 'p99', value: 20, strict: true },
    explain: true,
  },
  {
    name: 'advanced-search',
    module: 'membership',
    what: 'POST /membership/people/advancedSearch: age > 40 and gender = Male',
    request: (token) => ({
      method: 'POST',
      path: '/membership/people/advancedSearch',
      token,
      body: JSON.stringify([
        { field: 'age', operator: 'greaterThan', value: '40' },
        { field: 'gender', operator: 'equals', value: 'Male' },
      ]),
    }),
    target: { text: '≥ 500 req/s with p99 ≤ 100 ms', kind: 'rps', value: 500, p99Max: 100 },
    explain: true,
  },
  {
    name: 'groups',
    module: 'membership',
    what: `GET /membership/groups (${SHAPE.big.groups} groups)`,
    request: (token) => ({ method: 'GET', path: '/membership/groups', token }),
    target: halfCeiling('groups'),
  },
  {
    name: 'checkin',
    module: 'attendance',
    what: 'POST /attendance/visits/checkin: ten people per request, a different ten each time',
    request: (token) => ({ method: 'POST', token, ...checkinBatch(0), variants: { count: CHECKIN_BATCHES, of: checkinBatch } }),
    target: { text: '≥ 1,000 ten-person check-ins/s', kind: 'rps', value: 1000 },
  },
  {
    name: 'trend',
    module: 'attendance',
    what: 'GET /attendance/attendancerecords/trend, unfiltered (1M visit sessions in the church)',
    request: (token) => ({ method: 'GET', path: '/attendance/attendancerecords/trend', token }),
    target: { text: 'trend p99 ≤ 50 ms', kind: 'p99', value: 50 },
    explain: true,
  },
  {
    name: 'trend-service',
    module: 'attendance',
    what: 'GET /attendance/attendancerecords/trend?serviceId= (one of six services)',
    request: (token) => ({ method: 'GET', path: `/attendance/attendancerecords/trend?serviceId=${fixtures.serviceId(0)}`, token }),
    target: { text: 'trend p99 ≤ 50 ms', kind: 'p99', value: 50 },
    explain: true,
  },
  {
    name: 'download',
    module: 'attendance',
    what: `GET /attendance/visitsessions/download/:sessionId (a session of the ${SHAPE.big.downloadGroupMembers}-member group)`,
    request: (token) => ({ method: 'GET', path: `/attendance/visitsessions/download/${fixtures.downloadSession()}`, token }),
    target: { text: 'download p99 ≤ 20 ms', kind: 'p99', value: 20 },
    explain: true,
  },

  // giving (issue 20): five years of weekly gifts of the big church
  {
    name: 'giving-summary',
    module: 'giving',
    what: `GET /giving/donations/summary for ${summaryYear()} (a calendar year of ~99,000 donations, by week and fund)`,
    request: (token) => ({ method: 'GET', path: `/giving/donations/summary?startDate=${summaryYear()}-01-01&endDate=${summaryYear()}-12-31`, token }),
    target: { text: 'summary p99 ≤ 50 ms', kind: 'p99', value: 50 },
    explain: true,
  },
  {
    name: 'campaigns',
    module: 'giving',
    what: `GET /giving/campaigns/progress: ${SHAPE.giving.campaigns} campaigns with what each raised and was pledged (the building campaign: two years of its fund's gifts, ${SHAPE.giving.pledgers.toLocaleString('en-US')} pledges)`,
    request: (token) => ({ method: 'GET', path: '/giving/campaigns/progress', token }),
    target: { text: 'campaign progress p99 ≤ 50 ms', kind: 'p99', value: 50 },
    explain: true,
  },
  {
    name: 'campaign-people',
    module: 'giving',
    // Measured, no target yet: the answer is a row per person (about 8,500 here, most of the church gave to the
    // building fund in two years), so its cost is mostly serializing a large page.
    what: `GET /giving/campaigns/:id/progress: the building campaign with a row per person who pledged or gave (~8,500 rows)`,
    request: (token) => ({ method: 'GET', path: `/giving/campaigns/${fixtures.campaignId(0)}/progress`, token }),
  },
  {
    name: 'fund-total',
    module: 'giving',
    what: 'GET /giving/funds/public/:churchId/:fundId/total, no token: all-time total of the building campaign (~35,000 allocations)',
    request: () => ({ method: 'GET', path: `/giving/funds/public/${fixtures.churchId}/${fixtures.fundId(SHAPE.giving.totalFund)}/total` }),
    target: halfCeiling('public fund total'),
    explain: true,
  },
  {
    name: 'donations-person',
    module: 'giving',
    what: 'GET /giving/donations?personId=, a different person each request (~50 gifts with their funds)',
    request: (token) => ({
      method: 'GET',
      path: `/giving/donations?personId=${people[0]}`,
      token,
      variants: { count: people.length, of: (n) => ({ path: `/giving/donations?personId=${people[n]}` }) },
    }),
    target: halfCeiling('donations of a person'),
    explain: true,
  },
  // content (issues 17 and 18): the public website, blog, calendar feed, Bible and sermons
  {
    name: 'page-tree',
    module: 'content',
    what: `GET /content/pages/:churchId/tree?url=, no token: one of ${SHAPE.content.pages} pages of ${SHAPE.content.sectionsPerPage} sections × ${SHAPE.content.elementsPerSection} elements, in turn`,
    request: () => {
      const path = (n: number) => `/content/pages/${fixtures.churchId}/tree?url=${encodeURIComponent(fixtures.pageUrl(n % SHAPE.content.pages))}`;
      return { method: 'GET', path: path(1), variants: { count: SHAPE.content.pages, of: (n) => ({ path: path(n) }) } };
    },
    target: halfCeiling('page tree by url'),
  },
  {
    name: 'posts',
    module: 'content',
    what: `GET /content/posts/public/:churchId, no token: the first page of ${SHAPE.content.posts} published posts with their authors`,
    request: () => ({ method: 'GET', path: `/content/posts/public/${fixtures.churchId}` }),
    target: { text: 'posts p99 ≤ 20 ms', kind: 'p99', value: 20 },
    explain: true,
  },
  {
    name: 'ics',
    module: 'content',
    what: `GET /content/events/subscribe?churchId=&curatedCalendarId=, no token: the ICS feed of a calendar of ${SHAPE.content.calendarEvents} events`,
    request: () => ({ method: 'GET', path: `/content/events/subscribe?churchId=${fixtures.churchId}&curatedCalendarId=${fixtures.curatedCalendarId()}` }),
    target: { text: 'ICS feed p99 ≤ 20 ms', kind: 'p99', value: 20 },
  },
  {
    name: 'verses',
    module: 'content',
    what: 'GET /content/bibles/KJV/verses/John.3.16-John.3.21, no token: a verse range of the bundled (kept) KJV',
    request: () => ({ method: 'GET', path: '/content/bibles/KJV/verses/John.3.16-John.3.21' }),
    target: halfCeiling('cached verse range'),
    explain: true,
  },
  {
    name: 'sermons',
    module: 'content',
    what: `GET /content/sermons/public/:churchId, no token: a church with ${SHAPE.content.sermons.toLocaleString('en-US')} sermons`,
    request: () => ({ method: 'GET', path: `/content/sermons/public/${fixtures.churchId}` }),
    target: { text: 'sermons p99 ≤ 20 ms', kind: 'p99', value: 20 },
  },
  // doing (issue 19)
  {
    name: 'plan-items',
    module: 'doing',
    what: `GET /doing/planItems/plan/:planId: a plan of ${SHAPE.doing.planItems} items (6 headers of 9)`,
    request: (token) => ({ method: 'GET', path: `/doing/planItems/plan/${fixtures.planId()}`, token }),
    target: halfCeiling('plan items'),
    explain: true,
  },
  {
    name: 'autofill',
    module: 'doing',
    what: `POST /doing/plans/autofill/:id: ${SHAPE.doing.positionsPerPlan} positions from ${SHAPE.doing.candidates} people (10 teams of 30), a fresh plan each request`,
    request: (token) => ({ method: 'POST', token, ...autofill(0), variants: { count: SHAPE.doing.autofillPlans - 1, of: (n) => autofill(n + 1), unique: true } }),
    target: { text: 'autofill p99 ≤ 100 ms', kind: 'p99', value: 100 },
    explain: true,
  },
  // reporting (issue 19)
  {
    name: 'report-trend',
    module: 'reporting',
    what: `GET /reporting/reports/attendanceTrend/run: two years of weekly attendance of the big church (from ${historyStart()})`,
    request: (token) => ({ method: 'GET', path: '/reporting/reports/attendanceTrend/run', token }),
    target: { text: 'trend report p99 ≤ 100 ms', kind: 'p99', value: 100 },
    explain: true,
  },
  // messaging (issue 16); its real-time fan-out has a bench of its own (bench/realtime.ts)
  {
    name: 'unread-count',
    module: 'messaging',
    what: `GET /messaging/notifications/unreadCount: the caller's unread notifications (${SHAPE.messaging.minPerPerson} to ${SHAPE.messaging.maxPerPerson} kept per person, up to ${SHAPE.messaging.maxUnread} unread)`,
    request: (token) => ({ method: 'GET', path: '/messaging/notifications/unreadCount', token }),
    target: halfCeiling('unread count'),
    explain: true,
  },
];
