import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EXTRA_SHAPE } from '../seed/extras';
import { fixtures, SHAPE, summaryYear, uid } from './fixtures';

/**
 * The reads the real apps make (`shared/clients/frontend-calls.json`: every GET of B1Admin, B1App and their shared
 * packages), turned into requests against the seeded big church: the call's path as the client writes it is
 * matched against the module's own OpenAPI document (which also says whether the route is public and which
 * permission it wants), and each `:p` gets a real id of the seed, chosen by the route's parameter name and the
 * resource it addresses (the tables below). A call whose id the seed cannot give is reported as unresolved.
 */

export interface AppCall {
  method: string;
  module: string;
  /** as the client writes it, `:p` for a value */
  path: string;
  query: string;
  sites: string[];
}

/** One operation of a module's OpenAPI document. */
export interface Operation {
  /** `/membership/people/{id}` */
  template: string;
  public: boolean;
  /** the route asks for a permission (its description names one), not just a signed-in user */
  permission: boolean;
  queryNames: string[];
}

export type TokenKind = 'staff' | 'member' | 'none';

export interface ResolvedCall {
  call: AppCall;
  /** `GET /membership/people/:p` as the apps write it */
  label: string;
  template?: string;
  /** the request sent (path and query), when every value could be resolved */
  path?: string;
  token: TokenKind;
  /** why no request was built: no route in the module's document, or a value the seed does not hold */
  unresolved?: string;
}

export const CALLS_FILE = process.env.BENCH_APP_CALLS ?? path.resolve(__dirname, '..', '..', '..', 'shared', 'clients', 'frontend-calls.json');

export function loadAppCalls(file = CALLS_FILE): AppCall[] {
  if (!existsSync(file)) throw new Error(`the apps' calls are not at ${file} (set BENCH_APP_CALLS)`);
  const { calls } = JSON.parse(readFileSync(file, 'utf8')) as { calls: AppCall[] };
  return calls.filter((c) => c.method === 'GET');
}

/** The GET operations of a module's OpenAPI document (`/<module>/docs/json`). */
export function operationsOf(doc: { paths?: Record<string, { get?: { security?: unknown[]; description?: string; parameters?: Array<{ in: string; name: string }> } }> }): Operation[] {
  return Object.entries(doc.paths ?? {})
    .filter(([, item]) => item.get)
    .map(([template, item]) => ({
      template,
      public: Array.isArray(item.get!.security) && item.get!.security.length === 0,
      permission: /bearer token with permission/.test(item.get!.description ?? ''),
      queryNames: (item.get!.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    }));
}

const ids = {
  person: (i = 0) => fixtures.personId(i),
  member: () => fixtures.personId(EXTRA_SHAPE.memberPerson),
  group: (g = 0) => fixtures.groupId(g),
  key: (k: string) => uid(k),
};
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * Path parameters by the resource they address: `<template regex>` → value. The first rule whose pattern matches
 * the template and whose parameter is the one being filled wins; `{id}` falls to the segment before it.
 */
const PARAM_RULES: Array<[RegExp, string, string | null]> = [
  [/\/content\/events\/group\//, 'groupId', ids.group(SHAPE.content.eventGroup)],
  [/\/content\/events\/public\/group\//, 'groupId', ids.group(SHAPE.content.eventGroup)],
  [/\/content\/events\/rsvps\/group\//, 'groupId', ids.group(SHAPE.content.eventGroup)],
  [/\/content\/files\/\{contentType\}/, 'contentType', 'group'],
  [/\/membership\/associatedGroups\/content\//, 'contentType', 'event'],
  [/\/membership\/associatedGroups\/content\//, 'contentId', ids.key('event:0:0')],
  [/\/messaging\/conversations\/current\//, 'contentId', 'bench-stream-0'],
  [/\/messaging\/conversations\/messages\//, 'contentType', 'group'],
  [/\/messaging\/conversations\/messages\//, 'contentId', ids.group(0)],
  [/\/membership\/householdpickup\//, 'id', ids.key('household:0:0')],
  [/\/membership\/memberpermissions\/member\//, 'id', ids.person(0)],
  [/\/membership\/memberpermissions\/form\//, 'id', ids.key('form:0:0')],
  [/\/membership\/rolepermissions\/roles\//, 'id', ids.key('role:0')],
  [/\/giving\/paymentmethods\/personid\//, 'id', ids.person(0)],
  [/\/doing\/workflowStep(Actions|Routes)\/step\//, 'id', ids.key('wstep:0:0:0')],
  [/\/doing\/(workflowSteps|workflowTriggers|workflowTriggers\/executions)\/workflow\//, 'id', ids.key('workflow:0:0')],
  [/\/doing\/(conditions|conjunctions)\/stepRoute\//, 'id', ids.key('wroute:0:0:0')],
  [/\/doing\/(conditions|conjunctions)\/trigger\//, 'id', ids.key('wtrigger:0:0')],
  [/\/messaging\/reminders\/event\//, 'id', ids.key('event:0:0')],
  [/\/messaging\/reminders\/scope\/plan\//, 'id', fixtures.planId()],
  [/\/messaging\/reminders\/task\//, 'id', ids.key('card:0:0')],
  [/\/messaging\/messages\/\{churchId\}/, 'id', ids.key('message:0:group:0:0')],
  [/\/messaging\/conversations\/\{churchId\}/, 'id', ids.key('conversation:0:group:0')],
  [/\/giving\/customers\//, 'id', ids.key('customer:0:0')],
  [/\/messaging\/privatemessages\/existing\//, 'personId', ids.member()],
  [/\/content\/gallery\/stock\//, 'folder', 'worship'],
  [/\/content\/gallery\//, 'folder', 'photos'],
  // values only an outside system or a live sign-in gives (no seed can hold them)
  [/\/content\/blocks\/\{churchId\}\/tree\//, 'id', null],
  [/\/content\/praiseCharts\//, 'id', null],
  [/\/content\/preview\/data\//, 'key', null],
];

/** Path parameters by name. */
const BY_NAME: Record<string, string | null> = {
  churchId: fixtures.churchId,
  personId: ids.person(0),
  userId: fixtures.userId(0),
  groupId: ids.group(0),
  householdId: ids.key('household:0:0'),
  sessionId: fixtures.downloadSession(),
  planId: fixtures.planId(),
  planTypeId: ids.key('plantype:0:0'),
  ministryId: ids.key('group:0:ministry:0'),
  curatedCalendarId: fixtures.curatedCalendarId(),
  eventId: ids.key('event:0:0'),
  fundId: fixtures.fundId(0),
  campaignId: fixtures.campaignId(0),
  formId: ids.key('form:0:0'),
  songId: ids.key('song:0:0'),
  songDetailId: ids.key('songdetail:0:0'),
  arrangementId: ids.key('arrangement:0:0'),
  workflowId: ids.key('workflow:0:0'),
  conversationId: ids.key('conversation:0:group:0'),
  deviceId: ids.key('device:0:0'),
  planItemId: ids.key('planitem:0:0'),
  tag: 'standard',
  keyName: 'attendanceTrend',
  contentType: 'group',
  contentId: ids.group(0),
  // sign-in codes and outside channels: only a live flow or an outside account gives them
  pairingCode: null,
  userCode: null,
  sessionCode: null,
  clientId: null,
  channelId: null,
  providerId: null,
  translationKey: 'KJV',
  blockType: 'footerBlock',
};

/** `{id}` by the resource segment before it (`/membership/people/{id}` → a person). */
const BY_RESOURCE: Record<string, string | null> = {
  people: ids.person(0),
  groups: ids.group(0),
  households: ids.key('household:0:0'),
  sessions: fixtures.downloadSession(),
  churches: fixtures.churchId,
  forms: ids.key('form:0:0'),
  standalone: ids.key('form:0:0'),
  formsubmissions: ids.key('submission:0:0'),
  questions: ids.key('question:0:0:0'),
  sort: ids.key('question:0:0:0'),
  roles: ids.key('role:0'),
  batches: ids.key('batch:0:x:0'),
  lists: ids.key('list:0:0'),
  webhooks: ids.key('webhook:0:0'),
  users: fixtures.userId(0),
  donations: null, // filled from the database (a donation of person 0)
  curatedcalendars: fixtures.curatedCalendarId(),
  events: ids.key('event:0:0'),
  links: ids.key('link:0:0'),
  pages: ids.key('page:0:0'),
  sermons: ids.key('sermon:0:0'),
  songs: ids.key('song:0:0'),
  songdetails: ids.key('songdetail:0:0'),
  arrangements: ids.key('arrangement:0:0'),
  arrangementkeys: ids.key('arrkey:0:0:0'),
  registrations: ids.key('registration:0:0:0'),
  streamingservices: ids.key('stream:0:0'),
  emailtemplates: ids.key('emailtemplate:0:0'),
  privatemessages: ids.key('pm:0:0'),
  plans: fixtures.planId(),
  plantypes: ids.key('plantype:0:0'),
  workflows: ids.key('workflow:0:0'),
  tasks: ids.key('card:0:0'),
  reports: 'attendanceTrend',
  campaigns: fixtures.campaignId(0),
  donationbatches: ids.key('batch:0:0'),
  existing: ids.member(),
};

/** Query values by key (`?personId=:p`). */
const QUERY_VALUES: Record<string, (template: string) => string | null> = {
  personId: () => ids.person(0),
  groupId: () => ids.group(0),
  sessionId: () => fixtures.downloadSession(),
  campusId: () => ids.key('campus:0:0'),
  serviceId: () => fixtures.serviceId(0),
  formId: () => ids.key('form:0:0'),
  subscriptionId: () => ids.key('subscription:0:0'),
  churchId: () => fixtures.churchId,
  siteId: () => ids.key('site:0:0'),
  id: (t) => (/\/pages\//.test(t) ? ids.key('page:0:0') : null),
  ids: (t) =>
    /people/.test(t)
      ? [0, 1, 2, 3, 4].map((i) => ids.person(i)).join(',')
      : /groups/.test(t)
        ? [0, 1, 2].map((g) => ids.group(g)).join(',')
        : /planTypes/.test(t)
          ? ids.key('plantype:0:0')
          : /schedulingPreferences/.test(t)
            ? [0, 1, 2].map((i) => ids.person(SHAPE.doing.firstCandidate + i)).join(',')
            : null,
  planIds: () => fixtures.planId(),
  date: () => day(0),
  startDate: () => `${summaryYear()}-01-01`,
  endDate: () => `${summaryYear()}-12-31`,
  start: () => day(-30),
  end: () => day(60),
  from: () => day(-30),
  to: () => day(60),
  term: () => SHAPE.searchTerm,
  email: () => fixtures.userEmail(0),
  category: () => `arrangementKey_${ids.key('arrkey:0:0:0')}`,
  label: () => 'Bench',
  youtubeVideoId: () => 'vid00000001',
  videoType: () => 'youtube',
  videoData: () => 'vid00000001',
  occurrenceStart: () => null, // filled from the database (event 0's first start)
  page: () => '1',
  limit: () => '50',
  offset: () => '0',
  search: () => 'Song',
  q: () => 'Song',
  returnUrl: () => 'https://example.test/return',
  // an outside service's sign-in answer, a sermon page on the web, chart keys: no seed holds them
  verifier: () => null,
  token: () => null,
  secret: () => null,
  keys: () => null,
  url: () => null,
  title: () => null,
  author: () => null,
};

/** Queries a client builds in code (`??:q`): what it sends, per route. */
const BUILT_QUERIES: Record<string, string> = {
  '/content/eventBookings/calendar': `startTime=${day(-30)}T00:00:00Z&endTime=${day(90)}T00:00:00Z`,
  '/membership/auditlogs': 'limit=50&offset=0',
  '/messaging/reminders/event/{id}/preview': 'recipientMode=group&offsets=1440&sendLocalTime=09:00:00&timeZone=America/Chicago',
};

function segments(p: string): string[] {
  return p.split('/').filter(Boolean);
}

/** The operation a client path matches (case-insensitive literals, `:p` only where the route has a parameter). */
export function matchOperation(module: string, clientPath: string, ops: Operation[]): Operation | undefined {
  const wanted = [module, ...segments(clientPath)];
  let best: { op: Operation; score: number } | undefined;
  for (const op of ops) {
    const have = segments(op.template);
    if (have.length !== wanted.length) continue;
    let score = 0;
    let ok = true;
    for (let i = 0; i < have.length && ok; i++) {
      const param = have[i]!.startsWith('{');
      if (wanted[i] === ':p') ok = param;
      else if (!param && have[i]!.toLowerCase() === wanted[i]!.toLowerCase()) score++;
      else if (!param) ok = false;
    }
    if (ok && (!best || score > best.score)) best = { op, score };
  }
  return best?.op;
}

/** Chooses the token: none for a public route, staff for a permission, the member for member-app reads of any user. */
function tokenFor(call: AppCall, op: Operation): TokenKind {
  if (op.public) return 'none';
  if (op.permission) return 'staff';
  return call.sites.some((s) => s.startsWith('B1App:')) || /\/my\b/.test(call.path) ? 'member' : 'staff';
}

export function resolveCall(call: AppCall, opsByModule: Record<string, Operation[]>, lookups: { donationId?: string; occurrenceStart?: string }): ResolvedCall {
  const label = `GET /${call.module}${call.path}${call.query ? ` ${call.query}` : ''}`;
  const ops = opsByModule[call.module] ?? [];
  let clientPath = call.path;
  let query = call.query;
  // `/people/ ?:q`: the client appends a value (an id, a query) in code; an id when the route takes one there
  const built = /^\?\?:q/.test(query);
  if (query.startsWith('?:q')) {
    const rest = query.slice(3);
    const [extraPath, extraQuery = ''] = rest.split('?');
    const withId = `${clientPath.replace(/\/$/, '')}/:p${extraPath ?? ''}`;
    if (matchOperation(call.module, withId, ops)) {
      clientPath = withId;
      query = extraQuery ? `?${extraQuery}` : '';
    } else {
      query = extraQuery ? `?${extraQuery}` : '';
    }
  }
  // a path the gateway sends to another module (`/membership/campuses` is attendance's) is in that module's document
  const op = matchOperation(call.module, clientPath, ops) ?? Object.values(opsByModule).map((o) => matchOperation(call.module, clientPath, o)).find(Boolean);
  // no route of that shape: sent as written when it carries no value (it answers what the apps get), else reported
  if (!op && !clientPath.includes(':p')) return { call, label, token: 'staff', path: `/${call.module}${clientPath}` };
  if (!op) return { call, label, token: 'staff', unresolved: `no GET route of the ${call.module} document matches` };
  const token = tokenFor(call, op);
  const have = segments(op.template);
  const wanted = [call.module, ...segments(clientPath)];
  const parts: string[] = [];
  for (let i = 0; i < have.length; i++) {
    const seg = have[i]!;
    if (!seg.startsWith('{')) {
      parts.push(seg);
      continue;
    }
    if (wanted[i] !== ':p') {
      parts.push(wanted[i]!);
      continue;
    }
    const name = seg.slice(1, -1);
    const before = wanted[i - 1] ?? '';
    const byLiteral: Record<string, string> = { personConfidential: ids.person(0), privateMessage: ids.person(0), streamingLive: 'bench-stream-0', streamingLiveHost: 'bench-stream-0', arrangement: ids.key('arrangement:0:0') };
    if (name === 'contentId' && byLiteral[before]) {
      parts.push(encodeURIComponent(byLiteral[before]!));
      continue;
    }
    const rule = PARAM_RULES.find(([re, param]) => param === name && re.test(op.template));
    let value: string | null | undefined = rule ? rule[2] : undefined;
    if (value === undefined && name !== 'id') value = BY_NAME[name];
    if (value === undefined && name === 'id') {
      const resource = (have[i - 1] ?? '').toLowerCase();
      value = resource === 'donations' ? (lookups.donationId ?? null) : BY_RESOURCE[resource];
    }
    if (value === undefined || value === null) return { call, label, template: op.template, token, unresolved: `no seed value for {${name}} of ${op.template}` };
    parts.push(encodeURIComponent(value));
  }
  const params: string[] = [];
  if (built) {
    const q = BUILT_QUERIES[op.template];
    if (q) params.push(q);
  } else if (query) {
    for (const pair of query.replace(/^\?/, '').split('&')) {
      if (!pair || pair === ':p') continue;
      const [key, raw = ''] = pair.split('=');
      if (!key) continue;
      if (raw === ':p' || raw.includes(':q') || raw.includes(':p')) {
        const value = key === 'occurrenceStart' ? (lookups.occurrenceStart ?? null) : QUERY_VALUES[key]?.(op.template);
        if (value === null) return { call, label, template: op.template, token, unresolved: `no seed value for ?${key}= of ${op.template}` };
        if (value === undefined) {
          if (raw.startsWith('arrangementKey_')) params.push(`${key}=${encodeURIComponent(QUERY_VALUES.category!(op.template)!)}`);
          else return { call, label, template: op.template, token, unresolved: `no seed value for ?${key}=` };
          continue;
        }
        params.push(`${key}=${encodeURIComponent(value)}`);
      } else {
        params.push(pair);
      }
    }
  }
  const requestPath = `/${parts.join('/')}${params.length ? `?${params.join('&')}` : ''}`;
  return { call, label, template: op.template, path: requestPath, token };
}
