import { fixtures, SHAPE } from './lib/fixtures';
import type { LoadRequest } from './lib/load';

export interface Target {
  text: string;
  kind: 'pgRatio' | 'rps' | 'p99';
  value: number;
  /** p99 targets: strictly below (`<`) or at most (`≤`) */
  strict?: boolean;
}

export interface Scenario {
  name: string;
  module: 'membership' | 'attendance';
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
];
